"""What `harness table1` finds already done in its MLflow store: a finished evaluation or training (found by
the job's tags: profile, row, seed and config hash), and the model folder a found training recorded.
`job` is a harness.reports.table1.reproduce.Job (its row and seed)."""

from __future__ import annotations

from pathlib import Path

from harness.common.errors import ConfigError
from harness.profiles import TRAIN_EXPERIMENT
from harness.schema import TrainConfig


def training_tags(job, config: TrainConfig) -> dict[str, str]:
    """The tags a job's training run carries and is found by."""
    return {"table.hash": config.run.tags["table.hash"], "table.seed": str(job.seed), "table.row": job.row.label}


def done(client, experiment: str, tags: dict[str, str]) -> bool:
    """Does `experiment` hold a FINISHED run with all `tags`?"""
    from harness.tracking import tagged_runs

    return bool(tagged_runs(client, experiment, tags, max_results=1))


def trained(client, job, config: TrainConfig, folder: Path, runner) -> bool:
    """Is the job's training FINISHED in MLflow? A live `harness train` in its folder (an orphan of a
    killed invocation) is waited for first: it may finish the training meanwhile."""
    tags = training_tags(job, config)
    if done(client, TRAIN_EXPERIMENT, tags):
        return True
    return runner.wait_for_run_dir(folder) and done(client, TRAIN_EXPERIMENT, tags)


def recorded_model(client, job, config: TrainConfig, expected: str) -> str:
    """The folder a training found in MLflow recorded as its own (run.output_dir) when it is not where this
    invocation's --output-dir puts it; a ConfigError naming both folders when neither holds the model."""
    from harness.tracking import tagged_runs

    runs = tagged_runs(client, TRAIN_EXPERIMENT, training_tags(job, config), max_results=1)
    recorded = runs[0].data.params.get("run.output_dir") if runs else None
    if recorded and Path(recorded).is_dir():
        return recorded
    raise ConfigError(
        f"the finished training of {job.row.label} seed {job.seed} is in the store but its model is neither at "
        f"{expected} nor at {recorded}: run from the folder it was trained in, or delete its MLflow run"
    )
