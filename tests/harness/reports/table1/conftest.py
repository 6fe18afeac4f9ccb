"""Fixtures of the Table 1 report tests: fabricated MLflow runs of the shape `harness table1` logs."""

import json

import mlflow
import pytest

from harness.profiles import EVAL_EXPERIMENT, TRAIN_EXPERIMENT


def _log_run(client, experiment, tags, files, tmp_path):
    """A FINISHED run with `tags` and JSON / JSONL artifacts {artifact path: content}."""
    run = client.create_run(client.get_experiment_by_name(experiment).experiment_id, tags=tags)
    for path, content in files.items():
        local = tmp_path / run.info.run_id / path
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_text("\n".join(json.dumps(r) for r in content) if path.endswith(".jsonl") else json.dumps(content))
        folder = str(local.parent.relative_to(tmp_path / run.info.run_id))
        client.log_artifact(run.info.run_id, str(local), None if folder == "." else folder)
    client.set_terminated(run.info.run_id, "FINISHED")


@pytest.fixture
def log_run():
    """`log_run(client, experiment, tags, files, tmp_path)`: a FINISHED run with JSON / JSONL artifacts."""
    return _log_run


def _new_store(root):
    """(URI, client) of a SQLite store holding the two Table 1 experiments (creating one costs seconds)."""
    uri = f"sqlite:///{root}/mlflow.db"
    client = mlflow.MlflowClient(uri)
    for name in (TRAIN_EXPERIMENT, EVAL_EXPERIMENT):
        client.create_experiment(name, artifact_location=str(root / "artifacts" / name))
    return uri, client


@pytest.fixture
def new_store():
    """`new_store(folder)`: (URI, client) of a new SQLite store holding the two Table 1 experiments."""
    return _new_store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """(URI, client) of one store for the module; tests tell their runs apart by their hashes."""
    return _new_store(tmp_path_factory.mktemp("report_store"))
