"""Where a run's MLflow artifacts go and what it shows and stores about its store: a database store
puts them beside the run (never in ./mlruns of the current folder), a password in the tracking URI
is neither printed nor stored, and the printed `mlflow ui` command can be pasted."""

import json
import shlex
from pathlib import Path

import mlflow
import pytest

from harness.cli import main
from harness.common.errors import TrackingError
from harness.common.uris import sqlite_path, sqlite_url
from harness.schema import load_train_config
from harness.tracking import RetryingClient, artifact_root, check_store, get_or_create_experiment
from harness.training.run_dir import RunDirectory
from harness.training.run_logger import RunLogger
from harness.training.summary import mlflow_ui_hint
from harness.training.train import close_checkpointless_run

PASSWORD = "S3cretPW42"


def test_artifact_root_never_depends_on_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runs = tmp_path / "runs"
    for uri in ("postgresql://u:p@127.0.0.1/db", "mysql+pymysql://root@127.0.0.1/db"):
        assert artifact_root(uri, beside="runs/train") == (runs / "mlartifacts").as_uri()
        with pytest.raises(TrackingError, match=r"is a database and keeps no files: .* --run.artifact_root") as info:
            artifact_root(uri)
        assert "u:p@" not in str(info.value)
    assert artifact_root(f"sqlite:///{tmp_path}/db/m.db", beside="runs/train") == (tmp_path / "db/mlartifacts").as_uri()
    assert artifact_root("http://127.0.0.1:5000", beside="runs/train") is None  # the server's own store
    assert artifact_root("postgresql://h/db", "shared/art") == (tmp_path / "shared/art").as_uri()  # made absolute
    assert artifact_root("sqlite:///m.db", "s3://bucket/x") == "s3://bucket/x"


def test_an_existing_experiment_keeps_its_location_and_says_so(tmp_path):
    uri = f"sqlite:///{tmp_path}/m.db"
    check_store(uri)
    client, notes = RetryingClient(uri), []
    made = get_or_create_experiment(client, "e", uri, (tmp_path / "first").as_uri(), notes.append)
    assert client.get_experiment(made).artifact_location == (tmp_path / "first").as_uri() and notes == []
    assert get_or_create_experiment(client, "e", uri, (tmp_path / "first").as_uri(), notes.append) == made
    assert notes == []  # the same place: nothing to say
    assert get_or_create_experiment(client, "e", uri, (tmp_path / "other").as_uri(), notes.append) == made
    assert notes == [
        f"MLflow experiment 'e' keeps the artifact location it was created with: {(tmp_path / 'first').as_uri()}"
    ]
    assert get_or_create_experiment(client, "plain", uri) and notes[1:] == []  # default: beside the database
    assert client.get_experiment_by_name("plain").artifact_location == (tmp_path / "mlartifacts").as_uri()


@pytest.mark.parametrize("folder", ["ü 目录 with spaces/run ☃", "it's #1", "q?x"])
def test_the_printed_mlflow_ui_command_can_be_pasted(folder, tmp_path):
    db = tmp_path / folder / "ml flow.db"
    for uri in (f"sqlite:///{db}", sqlite_url(db)):  # as typed, and '?' / '#' encoded as the harness writes it
        words = shlex.split(mlflow_ui_hint(uri, "1", "abc"))
        assert words[:3] == ["mlflow", "ui", "--backend-store-uri"] and sqlite_path(words[3]) == sqlite_path(uri)
    assert sqlite_path(sqlite_url(db)) == db
    hint = mlflow_ui_hint(f"mysql+pymysql://u:{PASSWORD}@127.0.0.1/db", "1", "abc")
    assert PASSWORD not in hint and shlex.split(hint)[3] == "mysql+pymysql://u:***@127.0.0.1/db"


@pytest.fixture(scope="module")
def password_store(postgres_databases):
    """A fresh PostgreSQL database, addressed with a password (the test server trusts 127.0.0.1,
    so any password connects)."""
    return postgres_databases().replace("postgresql://postgres@", f"postgresql://postgres:{PASSWORD}@", 1)


def test_a_database_store_keeps_artifacts_beside_the_run_and_no_password(password_store, tmp_path, monkeypatch, capsys):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)  # the reliability case ran from the project checkout: ./mlruns appeared there
    out = tmp_path / "runs" / "tr"
    small = ["--run.steps", "1", "--rollout.prompts_per_step", "4", "--rollout.group_size", "2"]
    small += ["--algo.mini_batches", "1", "--warmstart.steps", "0", "--task.heldout_size", "4"]
    code = main(["train", "--profile", "tiny", *small, "--output-dir", str(out), "--tracking-uri", password_store])
    shown = capsys.readouterr()
    assert code == 0, shown.err
    assert list(cwd.iterdir()) == []  # no ./mlruns
    summary = json.loads((out / "summary.json").read_text())
    client = mlflow.MlflowClient(password_store)
    run = client.get_run(summary["mlflow_run_id"])
    assert run.info.artifact_uri.startswith((tmp_path / "runs" / "mlartifacts").as_uri())
    stored = {p.name for p in (tmp_path / "runs" / "mlartifacts").rglob("*") if p.is_file()}
    assert {"summary.json", "config.yaml", "rollouts.jsonl"} <= stored
    masked = password_store.replace(PASSWORD, "***")
    assert run.data.params["run.tracking_uri"] == masked and summary["tracking_uri"] == masked
    assert f"--backend-store-uri '{masked}'" in shown.out
    assert PASSWORD not in shown.out + shown.err
    assert PASSWORD not in json.dumps(run.data.params) + json.dumps(run.data.tags)
    leaks = [p for p in tmp_path.rglob("*") if p.is_file() and PASSWORD.encode() in p.read_bytes()]
    assert leaks == []  # run_state.json, config.yaml, summary.json, the artifacts


def test_a_masked_run_state_still_resumes_and_closes_with_the_given_uri(password_store, tmp_path):
    """run_state.json holds the masked URI; the command's own URI (with the password) connects."""
    check_store(password_store)
    orphan = RunLogger(password_store, "orphans", "r", artifact_location=(tmp_path / "art").as_uri()).run_id
    run_dir = RunDirectory(tmp_path / "run")
    config = load_train_config("tiny", None, {"run.output_dir": str(run_dir.path), "run.tracking_uri": password_store})
    run_dir.write_state(password_store, "orphans", orphan)
    run_dir.write_config(config)
    assert PASSWORD not in run_dir.state_file.read_text() + run_dir.config_file.read_text()
    run_dir.check_resumable(config, steps_done=5)  # the same store, compared in masked form
    lines = []
    close_checkpointless_run(run_dir, password_store, lines.append)
    assert mlflow.MlflowClient(password_store).get_run(orphan).info.status == "KILLED" and len(lines) == 1
    elsewhere = load_train_config("tiny", None, {"run.output_dir": str(run_dir.path)})
    with pytest.raises(Exception, match=r"tracked at postgresql://postgres:\*\*\*@") as info:
        run_dir.check_resumable(elsewhere, steps_done=5)
    assert PASSWORD not in str(info.value)
    assert not Path(tmp_path / "art").exists() or PASSWORD.encode() not in b"".join(
        p.read_bytes() for p in (tmp_path / "art").rglob("*") if p.is_file()
    )
