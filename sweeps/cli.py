"""`harness sweep`: run an Optuna study of training runs, tracked in MLflow, and report it.

    harness sweep --config sweeps/configs/beta_grid.yaml                 # the paper's beta grid, tiny profile
    harness sweep --config my.yaml --workers 2 --n-trials 20 --run.steps 100
    harness sweep --config my.yaml --storage postgresql://postgres@db/optuna --tracking-uri http://mlflow:5000

The command checks the config, both stores and the study (creating or loading it), builds the
warm-start cache once, starts `--workers` worker processes (`python -m sweeps.worker`, their logs
in <output_dir>/workers/), prints a line per finished trial, and at the end writes the figures,
the trial table (trials.md, trials.csv) and the best trial onto the MLflow parent run and prints
the report. On many machines every machine runs the same command against the same storage and
tracking server; each one's report shows the study as it stood when its workers ended.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

from harness.config import field_docs, help_rows

FLAGS = ("n_trials", "workers", "storage", "study_name", "output_dir", "tracking_uri")


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


def run_sweep(config, log=print) -> int:
    from harness.tasks import build_task
    from harness.train import load_policy
    from sweeps.study import open_study, parent_run

    study = open_study(config)  # a bad storage URL or a study of another design fails here
    parent = parent_run(config, study)
    base = config.base_train_config({}, config.seed)
    if base.warmstart.steps > 0:  # once here, so that the workers share one cached warm start
        load_policy(base, build_task(base.task), log=lambda line: None)
    log(
        f"sweep {config.study_name}: {config.total_trials} trials, {config.workers} worker(s); "
        f"Optuna {config.storage_url}; MLflow parent run {parent} at {config.mlflow_uri}"
    )
    interrupted = False
    try:
        watch(start_workers(config), study, config, log)
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted: workers stopped; run the same command again to continue the study")
    finish(study, config, parent, interrupted, log)
    return 130 if interrupted else 0


def start_workers(config) -> list[subprocess.Popen]:
    folder = Path(config.output_dir) / "workers"
    folder.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(dataclasses.asdict(config))
    workers = []
    for index in range(config.workers):
        log_file = open(folder / f"worker{index}.log", "a")
        workers.append(
            subprocess.Popen(
                [sys.executable, "-m", "sweeps.worker", str(index)],
                stdin=subprocess.PIPE,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
        workers[-1].stdin.write(payload)
        workers[-1].stdin.close()
    return workers


def watch(workers: list[subprocess.Popen], study, config, log) -> None:
    """Wait for the workers, printing each trial as it ends."""
    from sweeps.report import short

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
                        else t.user_attrs.get("failure_reason", t.user_attrs.get("pruned_reason", ""))
                    )
                    log(f"  trial {t.number} {t.state.name.lower()} ({params}) {value}")
            if not alive:
                break
            time.sleep(2)
    except KeyboardInterrupt:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait()
        raise
    failed = [i for i, w in enumerate(workers) if w.returncode not in (0, None)]
    if failed:
        log(f"worker(s) {failed} exited with an error; see {Path(config.output_dir) / 'workers'}")


def finish(study, config, parent: str, interrupted: bool, log) -> None:
    """Figures, trial table and best trial onto the parent run; print the report."""
    from harness.tracking import RetryingClient
    from sweeps.figures import save_figures
    from sweeps.report import best_lines, sweep_report, trial_rows
    from sweeps.study import count_trials

    output = Path(config.output_dir)
    header, rows = trial_rows(study)
    with open(output / "trials.csv", "w", newline="") as sink:
        csv.writer(sink).writerows([header, *rows])
    figures = save_figures(study, config, output / "figures")
    report = sweep_report(study, config, parent, [str(p) for p in figures])
    (output / "trials.md").write_text("```\n" + report + "\n```\n")
    client = RetryingClient(config.mlflow_uri)
    for path in [output / "trials.csv", output / "trials.md", *figures]:
        client.log_artifact(parent, str(path))
    for line in best_lines(study, config):
        client.set_tag(parent, "sweep.best", line[:5000])
    complete = [t for t in study.get_trials(deepcopy=False) if t.state.name == "COMPLETE"]
    if complete and config.objective == "accuracy_gain":
        best = study.best_trial
        client.set_tag(parent, "sweep.best_trial", str(best.number))
        for key, value in best.params.items():
            client.set_tag(parent, f"sweep.best.{key}", f"{value:g}")
        from mlflow.entities import Metric

        client.log_batch(parent, metrics=[Metric("best_accuracy_gain", best.value, int(time.time() * 1000), 0)])
    done, pending = count_trials(study)
    status = "KILLED" if interrupted else ("FINISHED" if done >= config.total_trials and not pending else "RUNNING")
    if status != "RUNNING":
        client.set_terminated(parent, status)
    log(report)
