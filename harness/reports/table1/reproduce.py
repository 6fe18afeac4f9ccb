"""`harness table1` (`make reproduce-table1`): train every row on paired seeds, evaluate, report.

    harness table1                                  # countdown profile without a GPU, paper with one
    harness table1 --profile tiny --seeds 5 --steps 600 --rows table1,betas --jobs 2

Every (row, seed) is a job: `harness train` from the profile with the row's loss and the seed
(one thread each, `--jobs` at a time: the core count by default, never more than the number of
jobs), then `harness eval` of the trained policy on the profile's suite, in the training's process
(one start-up per job: harness.reports.table1.child_command); the base row is evaluated only (the
starting policy). A job's MLflow runs are tagged with the profile, the row, the seed and
a hash of the resolved config (table.*): an invocation skips every job whose runs are already
FINISHED with the same hash, and continues a killed training with `--resume` from its run
directory. The report is built from MLflow (the runs' summary.json and samples.jsonl artifacts),
so it needs nothing but the tracking store: see `harness.reports.table1.build`.

The output folder holds `runs/` (a folder per trained job), `logs/` (one file per child process),
the report, and `.table1.lock`: one invocation at a time. Ctrl-C or SIGTERM stops every job within
seconds (see harness.reports.table1.jobs); running the same command again continues. A job that fails is
named with its error and log, the report says its row is missing, and the command exits 1. The
tracking URI reaches the children through their environment (harness.reports.table1.child_command), so a password
in it never shows in `ps`; what is printed or written here shows it masked.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import yaml

from harness.common.errors import ConfigError, first_line
from harness.common.files import atomic_write_text
from harness.common.uris import HANDED_URI_ENV, redact
from harness.config_fields import without_added_defaults
from harness.dataclass_config import build_config, to_dict
from harness.profiles import EVAL_EXPERIMENT, TRAIN_EXPERIMENT, Profile, get_profile
from harness.reports.table1.child_command import THEN
from harness.reports.table1.found_runs import done, recorded_model, trained
from harness.reports.table1.jobs import JobFailed, Progress, Runner, Stopped, new_log
from harness.reports.table1.output_folder import output_folder
from harness.reports.table1.rows import Row, config_hash
from harness.schema import EvalConfig, TrainConfig, load_train_config

CHILD = [sys.executable, "-m", "harness.reports.table1.child_command"]  # + train/eval and their flags
IGNORED_IN_HASH = ("run.output_dir", "run.tracking_uri", "run.experiment", "run.run_name", "run.threads", "run.tags")


@dataclass(frozen=True)
class Job:
    row: Row
    seed: int


def train_config(profile: Profile, job: Job, steps: int | None, root: Path, uri: str) -> TrainConfig:
    """The resolved training config of a job (row loss, row overrides and seed on the profile)."""
    overrides = dict(profile.train_overrides)
    if steps is not None:
        overrides["run.steps"] = steps
    overrides.update(job.row.train_overrides)
    base = load_train_config(profile.name, None, overrides)
    # a checkpoint at least every quarter of the run, so that a killed invocation loses little
    overrides["run.checkpoint_every"] = max(1, min(base.run.checkpoint_every, base.run.steps // 4))
    loss = dict(job.row.loss_at(base.run.steps) or {"name": base.loss["name"]})
    overrides.update({"loss": loss.pop("name"), **{f"loss.{k}": v for k, v in loss.items()}})
    overrides.update({"run.seed": job.seed, "run.tracking_uri": uri, "run.experiment": TRAIN_EXPERIMENT})
    overrides["run.run_name"] = f"{job.row.label}-seed{job.seed}"
    if profile.eval_every:
        overrides["run.eval_every"] = profile.eval_every
    config = load_train_config(profile.name, None, overrides)
    key = train_hash(config)
    tags = {"table.profile": profile.name, "table.row": job.row.label, "table.seed": str(job.seed), "table.hash": key}
    if job.row.train_overrides:  # rows without overrides keep their tags as they were
        tags["table.overrides"] = json.dumps(job.row.train_overrides, sort_keys=True)
    folder = root / "runs" / f"{_slug(job.row.label)}-seed{job.seed}-{key}"
    return load_train_config(profile.name, None, {**overrides, "run.output_dir": str(folder), "run.tags": tags})


def train_hash(config: TrainConfig) -> str:
    """The hash of what decides a training's result: the resolved config without IGNORED_IN_HASH, and
    without the keys added since stores existed while at their default (their `since`, harness.config_fields: a
    row that sets one, e.g. rollout.staleness, hashes anew)."""
    from harness.tracking import flatten

    flat = without_added_defaults(TrainConfig, flatten(to_dict(config)))
    return config_hash({k: v for k, v in flat.items() if k not in IGNORED_IN_HASH})


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in label).strip("_")


def eval_config(
    profile: Profile, job: Job, model: str, key: str, folder: Path, uri: str, starting: str | None = None
) -> EvalConfig:
    """The evaluation of a job; `starting` (the base row: it trains nothing) tags it with the starting
    policy it evaluates, which a trained row's training run carries instead."""
    settings = {
        "suite": profile.suite,
        "k": profile.k,
        "limit": profile.limit,
        "max_new_tokens": profile.max_new_tokens,
        "temperature": profile.temperature,
        "top_p": profile.top_p,
        "seed": job.seed,
    }
    # the benchmarks' versions (their data or fixed draw) enter the hash: a store holding evaluations
    # of an older draw evaluates anew instead of pairing old problems with new ones
    eval_key = config_hash({**settings, "train": key, "benchmarks": benchmark_versions(profile.suite)})
    tags = {
        "table.profile": profile.name,
        "table.row": job.row.label,
        "table.seed": str(job.seed),
        "table.hash": key,
        "table.eval_hash": eval_key,
    }
    if starting is not None:
        from harness.tracking import STARTING_POLICY_TAG

        tags[STARTING_POLICY_TAG] = starting
    return build_config(
        EvalConfig,
        {
            **settings,
            "model": model,
            "output_dir": str(folder / "eval"),
            "tracking_uri": uri,
            "experiment": EVAL_EXPERIMENT,
            "tags": tags,
        },
    )


def benchmark_versions(suite: str) -> dict[str, str]:
    """{benchmark name: version} of a suite: which problems (file revision, generator and draw) an
    evaluation saw."""
    from benchmarks.benchmark_registry import resolve_suite

    return {benchmark.name: benchmark.version for benchmark in resolve_suite(suite)}


def base_model(profile: Profile) -> tuple[str, str, str]:
    """(the starting policy every row trains from, a hash of it, its one-line identity): the warm-started
    model if the profile warm-starts (built here once, cached; WarmStartError if it misses its target),
    else the profile's model."""
    from harness.models import cache_dir
    from harness.tasks import build_task
    from harness.training.train import load_policy
    from harness.training.warmstart import starting_policy, starting_policy_label, warm_start_key

    config = load_train_config(profile.name, None, dict(profile.train_overrides))
    if config.warmstart.steps == 0:
        label = starting_policy_label(starting_policy(config, None))
        return config.model.name, config_hash({"model": config.model.name}), label
    _, _, info = load_policy(config, build_task(config.task), log=lambda line: None)
    key = warm_start_key(config)
    return str(cache_dir() / "warmstart" / key), key, starting_policy_label(starting_policy(config, info))


def job_configs(
    job: Job, profile: Profile, steps, root: Path, uri: str, base: tuple[str, str, str]
) -> tuple[TrainConfig | None, EvalConfig]:
    """(the training config, None for the base row; the evaluation config) of one job. Their hashes
    (tags table.hash, table.eval_hash) are how the runs are found again, by this job and by the report."""
    if job.row.loss is None:
        model, key, folder = base[0], base[1], root / "runs" / f"base-seed{job.seed}-{base[1]}"
        return None, eval_config(profile, job, model, key, folder, uri, starting=base[2])
    config = train_config(profile, job, steps, root, uri)
    key, folder = config.run.tags["table.hash"], Path(config.run.output_dir)
    return config, eval_config(profile, job, config.run.output_dir, key, folder, uri)


def run_job(job: Job, config: TrainConfig | None, evaluation: EvalConfig, uri: str, logs: Path, runner, progress):
    """Train (unless the base row, or already in MLflow) and evaluate (unless already in MLflow); each
    child's output goes to a log file of its own in `logs`. JobFailed quotes the child's error."""
    from harness.tracking import RetryingClient

    client = RetryingClient(uri)
    name, kind = f"{job.row.label} seed {job.seed}", "eval" if config is None else "train"
    progress.start(name)
    started, did, what = time.monotonic(), [], "failed"
    # the URI goes through the environment, not argv (see harness.reports.table1.child_command)
    # PYTHONUNBUFFERED: the log shows a child's lines as they come, and keeps them if it is killed
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", HANDED_URI_ENV: uri}
    folder = Path(evaluation.output_dir).parent
    try:
        evaluated = {"table.eval_hash": evaluation.tags["table.eval_hash"]}
        if config is not None and not trained(client, job, config, folder, runner):
            checkpoints = folder / "checkpoints"
            resume = ["--resume"] if checkpoints.is_dir() and any(checkpoints.iterdir()) else []
            train = [*CHILD, "train", "--config", str(write_job_config(config, uri)), *resume]
            if done(client, EVAL_EXPERIMENT, evaluated):
                runner.call("train", train, new_log(logs, folder.name, "train"), env)
            else:  # the evaluation in the training's process: one start-up (harness.reports.table1.child_command)
                argv = [*train, THEN, "eval", *eval_flags(evaluation)]
                runner.call("train + eval", argv, new_log(logs, folder.name, "train-eval"), env)
                did.append("evaluated")
            did.insert(0, "resumed" if resume else "trained")
        if not did and not done(client, EVAL_EXPERIMENT, evaluated):
            if config is not None and not Path(evaluation.model).is_dir():  # found, trained elsewhere
                evaluation = replace(evaluation, model=recorded_model(client, job, config, evaluation.model))
            runner.call("eval", [*CHILD, "eval", *eval_flags(evaluation)], new_log(logs, folder.name, "eval"), env)
            did.append("evaluated")
        what = " + ".join(did) or "already in MLflow"
    except Stopped:
        what = "stopped"
        raise
    finally:
        timed = bool(did) and what not in ("failed", "stopped")  # only whole jobs predict the time left
        progress.end(kind, name, time.monotonic() - started, what, timed=timed)


def write_job_config(config: TrainConfig, uri: str) -> Path:
    """The job's training config beside its run folder, its tracking URI's password masked (the real
    URI reaches the child through its environment)."""
    folder = Path(config.run.output_dir)
    folder.parent.mkdir(parents=True, exist_ok=True)
    values = to_dict(config)
    values["run"]["tracking_uri"] = redact(uri)
    path = folder.parent / f"{folder.name}.yaml"
    atomic_write_text(path, yaml.safe_dump(values, sort_keys=False))
    return path


def eval_flags(evaluation: EvalConfig) -> list[str]:
    """`harness eval` flags of the evaluation, the tracking URI left out. Each value is read as YAML
    there, so strings go as JSON strings, which read back exactly (a '#' or ': ' in a folder name)."""
    flags = []
    for key, value in asdict(evaluation).items():
        if value is None or key in ("tags", "tracking_uri"):
            continue
        flags.append(f"--{key.replace('_', '-')}={json.dumps(value) if isinstance(value, str) else value}")
    return [*flags, "--tags", json.dumps(evaluation.tags)]


def reproduce(
    profile_name: str,
    rows: list[Row],
    seeds: int | None,
    steps: int | None,
    jobs: int | None,
    output_dir: str,
    uri: str,
    log=print,
    limit: int | None = None,
    baseline: str = "GRPO",
) -> dict:
    """Run (or find) every job, then build the report; returns the report's file paths.
    `limit` evaluates the first N problems of each benchmark instead of the profile's number; every
    row's accuracy is compared with the `baseline` row's."""
    profile = get_profile(profile_name, "--profile")
    if baseline not in [r.label for r in rows]:
        raise ConfigError(
            f"--baseline={baseline!r} is not a row of this table; allowed: {', '.join(r.label for r in rows)}"
        )
    if limit is not None:  # part of the evaluation's hash: a different limit is evaluated anew
        profile = replace(profile, limit=limit)
    root = Path(output_dir)
    with output_folder(root):  # a file, a read-only place, another table1: refused before anything runs
        # imported only now: MLflow and Lightning take seconds, and a bad output folder is refused at once
        from harness.reports.table1.build import build_report
        from harness.tracking import RetryingClient, artifact_root, check_store, get_or_create_experiment

        check_store(uri)
        client = RetryingClient(uri)
        for experiment in (TRAIN_EXPERIMENT, EVAL_EXPERIMENT):
            get_or_create_experiment(client, experiment, uri, artifact_root(uri, beside=root))
        seed_list = list(range(seeds or profile.seeds))
        plan = [Job(row, seed) for row in rows for seed in seed_list]
        for job in plan:  # every config is checked before anything runs
            if job.row.loss is not None:
                try:
                    train_config(profile, job, steps, root, uri)
                except ConfigError as error:
                    raise ConfigError(f"row {job.row.label} on the {profile.name} profile: {error}") from None
        # more threads than jobs would only wait; --jobs 1000 is not an error, just more than can be used
        workers = min(jobs or os.cpu_count() or 1, len(plan))
        capped = f" (--jobs {jobs} capped to the number of jobs)" if jobs and jobs > len(plan) else ""
        log(
            f"table1 on the {profile.name} profile: {len(rows)} rows x {len(seed_list)} seeds = {len(plan)} jobs, "
            f"{workers} at a time{capped}; runs in {root / 'runs'}, logs in {root / 'logs'}, MLflow at {redact(uri)}"
        )
        base = base_model(profile)
        # (job, training config or None, evaluation config); Job holds a dict, so it is no mapping key
        configured = [(job, *job_configs(job, profile, steps, root, uri, base)) for job in plan]
        progress = Progress(["eval" if config is None else "train" for _, config, _ in configured], workers, log)
        runner = Runner(workers, log)
        failures = runner.run(
            [
                (job, functools.partial(run_job, job, config, ev, uri, root / "logs", runner, progress))
                for job, config, ev in configured
            ]
        )
        failed = {(job.row.label, job.seed): _reason(error) for job, error in failures}
        # (row, seed) -> the hashes of this invocation's runs: the report reads only those
        expected = {
            (job.row.label, job.seed): (config.run.tags["table.hash"] if config else None, ev.tags["table.eval_hash"])
            for job, config, ev in configured
        }
        return build_report(profile, rows, seed_list, root, uri, expected, log, failed, baseline)


def _reason(error: BaseException) -> str:
    """Why a job left its row out, in one line, passwords masked."""
    return str(error) if isinstance(error, JobFailed) else redact(first_line(error))
