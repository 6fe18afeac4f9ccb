"""`harness sweep`: run an Optuna study of training runs, tracked in MLflow, and report it.

    harness sweep --config sweeps/configs/beta_grid.yaml                 # the paper's beta grid, tiny profile
    harness sweep --config my.yaml --workers 2 --n-trials 20 --run.steps 100
    harness sweep --config my.yaml --storage postgresql://postgres@db/optuna --tracking-uri http://mlflow:5000

The command checks the config, the output folder, both stores and the study (creating or loading
it), builds the warm-start cache once, starts `--workers` worker processes (`python -m sweeps.worker`,
their logs in <output_dir>/workers/; never more than the trials left to run or 4 per CPU core, a
note says so), prints a line per finished trial, and at the end writes the figures, the trial table
(trials.md, trials.csv) and the best trial onto the MLflow parent run and prints the report. Store
passwords are masked in everything it prints or stores. On many machines every machine runs the
same command against the same storage and tracking server; each one's report shows the study as it
stood when its workers ended.

Exit status: 0 when the study is complete; 2 with one line for a mistake in the config or a store,
and for trials that the environment stopped (a full disk: fix it and run the same command, which
retries them); 130 when interrupted (the same command continues the study); 1 when workers crashed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from harness.dataclass_config import field_docs, help_rows

FLAGS = ("n_trials", "workers", "storage", "study_name", "output_dir", "tracking_uri")
WORKER_MODULE = "sweeps.worker"
"""What each worker process runs (`python -m WORKER_MODULE INDEX`, the config on stdin)."""
STOP_WAIT_S = 60.0
"""Seconds interrupted workers get to close their trials before they are killed."""


def sweep_help() -> str:
    from sweeps.config import SweepConfig
    from sweeps.spaces import SPACES, get_space

    rows = "\n".join(f"  {key:<20} {doc} [default {default}]" for key, default, doc in help_rows(SweepConfig))
    spaces = "\n".join(f"  {name:<12} {' '.join(get_space(name).doc.split())}" for name in SPACES)
    return (
        f"sweep file keys (YAML; flags above override them):\n{rows}\n\nsearch spaces:\n{spaces}\n\n"
        "Any other --section.key VALUE overrides the base training config of every trial (see harness train --help)."
    )


def register(commands, common: argparse.ArgumentParser):
    """Add `harness sweep` to the CLI (entry point of group harness.commands); returns its function."""
    from sweeps.config import SweepConfig

    docs = field_docs(SweepConfig)
    parser = commands.add_parser(
        "sweep",
        help="Optuna study over a loss's hyper-parameters (beta grid by default), tracked in MLflow",
        epilog=sweep_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    parser.add_argument("--config", help="sweep YAML file (default: the paper's CE-GPPO beta grid on tiny)")
    for name in FLAGS:
        kind = int if name in ("n_trials", "workers") else str
        parser.add_argument("--" + name.replace("_", "-"), dest=name, type=kind, help=docs.get(name, ""))
    return sweep_command


def sweep_command(args: argparse.Namespace, extra: list[str]) -> int:
    from harness.cli import split_dotted
    from sweeps.config import load_sweep_config
    from sweeps.study import quiet_optuna

    quiet_optuna(args.verbose)
    config = load_sweep_config(args.config, {name: getattr(args, name) for name in FLAGS}, split_dotted(extra))
    return run_sweep(config)


def check_output(config) -> None:
    """The output folder and its workers/ and trials/ folders are writable: checked before any store
    is touched or any run created, so that a refusal leaves nothing behind (nothing RUNNING)."""
    from harness.common.files import ensure_writable_folder

    output = Path(config.output_dir)
    ensure_writable_folder(output, "output_dir")
    for sub in ("workers", "trials"):
        ensure_writable_folder(output / sub, f"the sweep's {sub} folder")


def worker_count(config, study, log) -> int:
    """How many workers to start: --workers, but no more than the trials left to run and 4 per CPU core
    (each worker imports torch and trains: more would only compete for the cores)."""
    from optuna.trial import TrialState

    from sweeps.study import count_trials

    done, pending = count_trials(study)
    running = sum(1 for t in pending if t.state == TrialState.RUNNING)
    to_run = config.total_trials - done - running  # new trials and waiting retries
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    count = min(config.workers, max(to_run, 1 if pending else 0), 4 * cores)
    if count == 0:
        log(f"note: study {config.study_name} has nothing left to run ({done} of {config.total_trials} trials done)")
    elif count < config.workers and to_run <= 0:
        log(f"note: starting 1 worker, not {config.workers}: it waits for the {running} trial(s) running elsewhere")
    elif count < config.workers and count < 4 * cores:
        log(f"note: starting {count} worker(s), not {config.workers}: {to_run} trial(s) left to run")
    elif count < config.workers:
        log(f"note: starting {count} worker(s), not {config.workers}: 4 per CPU core on this {cores}-core machine")
    return count


def run_sweep(config, log=print) -> int:
    from harness.common.uris import redact
    from sweeps.finish import finish
    from sweeps.recovery import EnvironmentFailure, fail_dead_trials, waiting_retries
    from sweeps.study import check_storage, check_tracking, count_trials, open_study, parent_run

    check_output(config)  # then both stores, before either is written
    check_storage(config)
    check_tracking(config)
    study = open_study(config)  # a bad storage URL or a study of another design fails here
    parent = parent_run(config, study)
    base = config.base_train_config({}, config.seed)
    if base.warmstart.steps > 0:  # once here, so that the workers share one cached warm start
        from harness.tasks import build_task
        from harness.training.train import load_policy

        load_policy(base, build_task(base.task), log=lambda line: None)
    count = worker_count(config, study, log)
    log(
        f"sweep {config.study_name}: {config.total_trials} trials, {count} worker(s); "
        f"Optuna {redact(config.storage_url)}; MLflow parent run {parent} at {redact(config.mlflow_uri)}"
    )
    interrupted = False
    try:
        watch(start_workers(config, count), study, config, log)
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted: workers stopped; run the same command again to continue the study")
    fail_dead_trials(study, config)  # a worker that died (killed, crashed) left its trial RUNNING
    waiting = [] if interrupted else waiting_retries(study)
    done, pending = count_trials(study)
    unfinished = not interrupted and not waiting and not pending and done < config.total_trials
    status, reason = None, "; ".join(f"trial {number}: {cause}" for number, cause in waiting[:3])
    if interrupted:
        status, reason = "KILLED", "interrupted (Ctrl-C or SIGTERM)"
    elif waiting:
        status = "FAILED"
    elif unfinished:
        status, reason = "FAILED", f"the workers ended with {done} of {config.total_trials} trials done"
    finish(study, config, parent, status, reason, log)
    if interrupted:
        return 130
    if waiting:
        raise EnvironmentFailure(
            f"{len(waiting)} trial(s) could not finish ({reason}); fix that and run the same command again: "
            "the study retries them"
        )
    if unfinished:
        log(f"{reason}; see the worker logs in {Path(config.output_dir) / 'workers'}")
        return 1
    return 0


def start_workers(config, count: int) -> list[subprocess.Popen]:
    """`count` worker processes (call from the thread that waits for them: they get SIGTERM when it ends)."""
    from harness.common.processes import die_with_parent

    folder = Path(config.output_dir) / "workers"
    payload = json.dumps(dataclasses.asdict(config))  # on stdin: a store password stays out of the process list
    workers = []
    for index in range(count):
        with open(folder / f"worker{index}.log", "a") as log_file:
            workers.append(
                subprocess.Popen(
                    [sys.executable, "-m", WORKER_MODULE, str(index)],
                    stdin=subprocess.PIPE,
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                    text=True,
                    preexec_fn=die_with_parent(),
                )
            )
        workers[-1].stdin.write(payload)
        workers[-1].stdin.close()
    return workers


def watch(workers: list[subprocess.Popen], study, config, log) -> None:
    """Wait for the workers, printing each trial as it ends."""
    from sweeps.sweep_report import short

    seen: set[int] = set()
    try:
        while True:
            alive = any(w.poll() is None for w in workers)
            for t in study.get_trials(deepcopy=False):
                if t.state.is_finished() and t.number not in seen:
                    seen.add(t.number)
                    params = ", ".join(f"{short(k)}={v:.4g}" for k, v in t.params.items())
                    value = (
                        f"gain {t.user_attrs['accuracy_gain']:+.3f}, end entropy {t.user_attrs['end_entropy']:.4f}"
                        if "accuracy_gain" in t.user_attrs
                        else t.user_attrs.get("environment_failure")
                        or t.user_attrs.get("failure_reason", t.user_attrs.get("pruned_reason", ""))
                    )
                    log(f"  trial {t.number} {t.state.name.lower()} ({params}) {value}")
            if not alive:
                break
            time.sleep(2)
    except KeyboardInterrupt:
        stop_workers(workers)
        raise
    from sweeps.worker import ENVIRONMENT_EXIT

    failed = [i for i, w in enumerate(workers) if w.returncode not in (0, None, ENVIRONMENT_EXIT)]
    if failed:
        log(f"worker(s) {failed} exited with an error; see {Path(config.output_dir) / 'workers'}")


def stop_workers(workers: list[subprocess.Popen]) -> None:
    """SIGTERM (each worker then closes its trial's runs and records the trial for a retry), and SIGKILL
    for one that has not ended after STOP_WAIT_S (the next command retries its trial)."""
    for w in workers:
        if w.poll() is None:
            w.terminate()
    deadline = time.monotonic() + STOP_WAIT_S
    for w in workers:
        try:
            w.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait()
