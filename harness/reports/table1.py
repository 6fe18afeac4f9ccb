"""`harness table1` (`make reproduce-table1`): train every row on paired seeds, evaluate, report.

    harness table1                                  # tiny profile without a GPU, paper with one
    harness table1 --profile tiny --seeds 5 --steps 600 --rows table1,betas --jobs 2

Every (row, seed) is a job: `harness train` from the profile with the row's loss and the seed
(one thread each, `--jobs` at a time, the core count by default), then `harness eval` of the
trained policy on the profile's suite; the base row is evaluated only (the starting policy). A
job's MLflow runs are tagged with the profile, the row, the seed and a hash of the resolved
config (table.*): an invocation skips every job whose runs are already FINISHED with the same
hash, and continues a killed training with `--resume` from its run directory. The report is
built from MLflow (the runs' summary.json and samples.jsonl artifacts), so it needs nothing but
the tracking store: see `harness.reports.report`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import yaml

from harness.common.errors import ConfigError
from harness.config import build_config, to_dict
from harness.models import cache_dir
from harness.reports.plan import EVAL_EXPERIMENT, TABLE_PROFILES, TRAIN_EXPERIMENT, Row, TableProfile, config_hash
from harness.schema import EvalConfig, TrainConfig, load_train_config
from harness.tracking import RetryingClient, check_store, get_or_create_experiment, tagged_runs

IGNORED_IN_HASH = ("run.output_dir", "run.tracking_uri", "run.experiment", "run.run_name", "run.threads", "run.tags")


@dataclass(frozen=True)
class Job:
    row: Row
    seed: int


def train_config(profile: TableProfile, job: Job, steps: int | None, root: Path, uri: str) -> TrainConfig:
    """The resolved training config of a job (row loss and seed on the profile)."""
    overrides = dict(profile.train_overrides)
    if steps is not None:
        overrides["run.steps"] = steps
    base = load_train_config(profile.train_profile, None, overrides)
    # a checkpoint at least every quarter of the run, so that a killed invocation loses little
    overrides["run.checkpoint_every"] = max(1, min(base.run.checkpoint_every, base.run.steps // 4))
    loss = dict(job.row.loss_at(base.run.steps) or {"name": base.loss["name"]})
    overrides.update({"loss": loss.pop("name"), **{f"loss.{k}": v for k, v in loss.items()}})
    overrides.update({"run.seed": job.seed, "run.tracking_uri": uri, "run.experiment": TRAIN_EXPERIMENT})
    overrides["run.run_name"] = f"{job.row.label}-seed{job.seed}"
    if profile.eval_every:
        overrides["run.eval_every"] = profile.eval_every
    config = load_train_config(profile.train_profile, None, overrides)
    key = train_hash(config)
    tags = {"table.profile": profile.name, "table.row": job.row.label, "table.seed": str(job.seed), "table.hash": key}
    folder = root / "runs" / f"{_slug(job.row.label)}-seed{job.seed}-{key}"
    return load_train_config(
        profile.train_profile, None, {**overrides, "run.output_dir": str(folder), "run.tags": tags}
    )


def train_hash(config: TrainConfig) -> str:
    from harness.tracking import flatten

    return config_hash({k: v for k, v in flatten(to_dict(config)).items() if k not in IGNORED_IN_HASH})


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in label).strip("_")


def eval_config(profile: TableProfile, job: Job, model: str, key: str, folder: Path, uri: str) -> EvalConfig:
    settings = {
        "suite": profile.suite,
        "k": profile.k,
        "limit": profile.limit,
        "max_new_tokens": profile.max_new_tokens,
        "temperature": profile.temperature,
        "top_p": profile.top_p,
        "seed": job.seed,
    }
    eval_key = config_hash({**settings, "train": key})
    tags = {
        "table.profile": profile.name,
        "table.row": job.row.label,
        "table.seed": str(job.seed),
        "table.hash": key,
        "table.eval_hash": eval_key,
    }
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


def base_model(profile: TableProfile) -> tuple[str, str]:
    """(the starting policy every row trains from, a hash of it): the warm-started model if the
    profile warm-starts (built here once, cached), else the profile's model."""
    from harness.tasks import build_task
    from harness.train import load_policy
    from harness.warmstart import warm_start_key

    config = load_train_config(profile.train_profile, None, dict(profile.train_overrides))
    if config.warmstart.steps == 0:
        return config.model.name, config_hash({"model": config.model.name})
    load_policy(config, build_task(config.task), log=lambda line: None)
    key = warm_start_key(config)
    return str(cache_dir() / "warmstart" / key), key


def done(client, experiment: str, tags: dict[str, str]) -> bool:
    return bool(tagged_runs(client, experiment, tags, max_results=1))


class Progress:
    """One line per job as it ends: what ran, how long, what is still going, and how long the rest
    will take (from the mean duration of finished jobs of the same kind: trained or evaluated only)."""

    def __init__(self, plan: list[Job], jobs: int, log):
        self.left = {"train": sum(j.row.loss is not None for j in plan), "eval": sum(j.row.loss is None for j in plan)}
        self.total, self.jobs, self.log = len(plan), jobs, log
        self.done, self.running, self.durations = 0, set(), {"train": [], "eval": []}
        self.lock, self.started = threading.Lock(), time.monotonic()

    def start(self, name: str) -> None:
        with self.lock:
            self.running.add(name)

    def eta(self) -> str:
        seconds = 0.0
        for kind, left in self.left.items():
            if left and not self.durations[kind]:
                return "the time left is known once a training run has finished"
            if left:
                seconds += left * sum(self.durations[kind]) / len(self.durations[kind])
        return f"about {seconds / self.jobs / 60:.0f} min left"

    def end(self, job: Job, name: str, seconds: float, what: str) -> None:
        kind = "eval" if job.row.loss is None else "train"
        with self.lock:
            self.running.discard(name)
            self.done += 1
            self.left[kind] -= 1
            if what != "already in MLflow":
                self.durations[kind].append(seconds)
            elapsed = time.monotonic() - self.started
            running = ", ".join(sorted(self.running)) or "nothing"
            self.log(
                f"[{self.done:>3}/{self.total}] {name}: {what} in {seconds / 60:.1f} min · running: {running} · "
                f"elapsed {elapsed / 60:.0f} min, {self.eta()}"
            )


def job_configs(
    job: Job, profile: TableProfile, steps, root: Path, uri: str, base: tuple[str, str]
) -> tuple[TrainConfig | None, EvalConfig]:
    """(the training config, None for the base row; the evaluation config) of one job. Their hashes
    (tags table.hash, table.eval_hash) are how the runs are found again, by this job and by the report."""
    if job.row.loss is None:
        model, key, folder = base[0], base[1], root / "runs" / f"base-seed{job.seed}-{base[1]}"
        return None, eval_config(profile, job, model, key, folder, uri)
    config = train_config(profile, job, steps, root, uri)
    key, folder = config.run.tags["table.hash"], Path(config.run.output_dir)
    return config, eval_config(profile, job, config.run.output_dir, key, folder, uri)


def run_job(job: Job, config: TrainConfig | None, evaluation: EvalConfig, uri: str, progress) -> None:
    """Train (unless the base row, or already in MLflow) and evaluate (unless already in MLflow)."""
    client = RetryingClient(uri)
    name = f"{job.row.label} seed {job.seed}"
    progress.start(name)
    started, did = time.monotonic(), []
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    if config is not None:
        key, folder = config.run.tags["table.hash"], Path(config.run.output_dir)
        if not done(
            client, TRAIN_EXPERIMENT, {"table.hash": key, "table.seed": str(job.seed), "table.row": job.row.label}
        ):
            folder.mkdir(parents=True, exist_ok=True)
            (folder.parent / f"{folder.name}.yaml").write_text(yaml.safe_dump(to_dict(config), sort_keys=False))
            resume = (
                ["--resume"] if (folder / "checkpoints").is_dir() and any((folder / "checkpoints").iterdir()) else []
            )
            _call(
                [
                    sys.executable,
                    "-m",
                    "harness.cli",
                    "train",
                    "--config",
                    str(folder.parent / f"{folder.name}.yaml"),
                    *resume,
                ],
                folder.parent / f"{folder.name}.train.log",
                env,
            )
            did.append("resumed" if resume else "trained")
    folder = Path(evaluation.output_dir).parent
    if not done(client, EVAL_EXPERIMENT, {"table.eval_hash": evaluation.tags["table.eval_hash"]}):
        flags = [f"--{k.replace('_', '-')}={v}" for k, v in asdict(evaluation).items() if v is not None and k != "tags"]
        _call(
            [
                sys.executable,
                "-m",
                "harness.cli",
                "eval",
                *flags,
                "--tags",
                yaml.safe_dump(evaluation.tags, default_flow_style=True).strip(),
            ],
            folder.parent / f"{folder.name}.eval.log",
            env,
        )
        did.append("evaluated")
    progress.end(job, name, time.monotonic() - started, " + ".join(did) or "already in MLflow")


def _call(cmd: list[str], log_file: Path, env: dict) -> None:
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "a") as sink:
        code = subprocess.run(cmd, stdout=sink, stderr=subprocess.STDOUT, env=env).returncode
    if code != 0:
        tail = log_file.read_text().strip().splitlines()[-1:] or [""]
        raise RuntimeError(f"{' '.join(cmd[2:4])} failed (exit {code}): {tail[0][:300]}; log: {log_file}")


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
) -> dict:
    """Run (or find) every job, then build the report; returns the report's file paths.
    `limit` evaluates the first N problems of each benchmark instead of the profile's number."""
    from harness.reports.report import build_report

    if profile_name not in TABLE_PROFILES:
        raise ConfigError(f"--profile={profile_name!r} is not known; valid: {', '.join(TABLE_PROFILES)}")
    profile = TABLE_PROFILES[profile_name]
    if limit is not None:  # part of the evaluation's hash: a different limit is evaluated anew
        profile = replace(profile, limit=limit)
    check_store(uri)
    client = RetryingClient(uri)
    for experiment in (TRAIN_EXPERIMENT, EVAL_EXPERIMENT):
        get_or_create_experiment(client, experiment, uri)
    root = Path(output_dir)
    seed_list = list(range(seeds or profile.seeds))
    plan = [Job(row, seed) for row in rows for seed in seed_list]
    for job in plan:  # every config is checked before anything runs
        if job.row.loss is not None:
            train_config(profile, job, steps, root, uri)
    workers = jobs or os.cpu_count() or 1
    log(
        f"table1 on the {profile.name} profile: {len(rows)} rows x {len(seed_list)} seeds = {len(plan)} jobs, "
        f"{workers} at a time; runs in {root / 'runs'}, MLflow at {uri}"
    )
    base = base_model(profile)
    # (job, training config or None, evaluation config); Job holds a dict, so it is no mapping key
    configured = [(job, *job_configs(job, profile, steps, root, uri, base)) for job in plan]
    progress = Progress(plan, workers, log)
    with ThreadPoolExecutor(workers) as pool:  # each job waits on its own subprocesses
        failures = [
            f
            for f in [pool.submit(run_job, job, config, ev, uri, progress) for job, config, ev in configured]
            if f.exception() is not None
        ]
    for failure in failures:
        log(f"a job failed: {failure.exception()}")
    # (row, seed) -> the hashes of this invocation's runs: the report reads only those
    expected = {
        (job.row.label, job.seed): (config.run.tags["table.hash"] if config else None, ev.tags["table.eval_hash"])
        for job, config, ev in configured
    }
    return build_report(profile, rows, seed_list, root, uri, expected, log)
