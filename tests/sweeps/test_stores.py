"""The sweep's stores: checked before anything is written, never someone else's, passwords masked,
any folder name, and a study that refuses another design; with fake training, in seconds."""

import hashlib
import importlib.util
import time
from pathlib import Path

import mlflow
import optuna
import pytest

from harness.common.errors import ConfigError, UserError
from harness.common.uris import sqlite_path, sqlite_url
from harness.tracking import RetryingClient, check_store, get_or_create_experiment
from sweeps import objective as objective_module
from sweeps import study
from sweeps import sweep_command as cli
from sweeps.config import load_sweep_config
from sweeps.recovery import close_dead_trial
from sweeps.study import open_study, parent_run

_spec = importlib.util.spec_from_file_location("fake_worker", Path(__file__).with_name("fake_worker.py"))
fake_worker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_worker)

FAST = {"run.steps": 2, "warmstart.steps": 0}
SECRET = "S3cretPW42"


@pytest.fixture(scope="module")
def tracking(tmp_path_factory):
    uri = sqlite_url(tmp_path_factory.mktemp("mlflow") / "mlflow.db")
    check_store(uri)
    return uri


@pytest.fixture
def fake_training(monkeypatch):
    monkeypatch.setattr(cli, "start_workers", fake_worker.in_process_workers)
    monkeypatch.setattr(objective_module, "train", fake_worker.fake_train)


def make_config(tmp_path, name, overrides=FAST, **values):
    base = {"study_name": name, "grid": {"loss.beta1": [0.0]}, "output_dir": str(tmp_path / name), **values}
    return load_sweep_config(None, base, overrides)


def md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("folder", ["q?x", "h#sh 100%"])
def test_both_stores_land_in_a_folder_named_with_query_characters(tmp_path, folder, fake_training):
    out = tmp_path / folder
    config = make_config(tmp_path, "odd", output_dir=str(out), tracking_uri=sqlite_url(out / "mlflow.db"))
    assert cli.run_sweep(config, log=lambda line: None) == 0
    # nothing at the name's prefix ("q" for "q?x"); MLflow itself leaves an empty "q%3Fx" folder
    assert all(p.name.startswith(folder[0] + "%") or p.name == folder for p in tmp_path.iterdir())
    assert not [p for p in tmp_path.iterdir() if p.name != folder and any(p.iterdir())]
    assert (out / "optuna.db").is_file() and (out / "mlflow.db").is_file()
    assert list((out / "mlartifacts").rglob("trials.md"))  # the parent run's artifacts beside the store
    assert optuna.load_study(study_name="odd", storage=config.storage_url).trials[0].state.name == "COMPLETE"


def test_an_mlflow_database_as_the_storage_is_refused_untouched(tmp_path, tracking):
    db = sqlite_path(tracking)
    before = md5(db)
    config = make_config(tmp_path, "foreign", storage=tracking, tracking_uri=sqlite_url(tmp_path / "other.db"))
    with pytest.raises(UserError, match="holds an MLflow tracking store, not an Optuna study storage") as error:
        open_study(config)
    assert "nothing was written" in str(error.value) and md5(db) == before


def test_one_database_for_both_stores_is_refused(tmp_path):
    url = sqlite_url(tmp_path / "both.db")
    with pytest.raises(ConfigError, match="are one database"):
        cli.run_sweep(make_config(tmp_path, "both", storage=url, tracking_uri=url), log=lambda line: None)
    assert not (tmp_path / "both.db").exists()


@pytest.mark.timeout(90)
@pytest.mark.parametrize("scheme", ["postgresql://postgres", "mysql+pymysql://root"])
def test_a_silent_storage_server_fails_in_seconds(tmp_path, silent_port, scheme, monkeypatch):
    monkeypatch.setattr(study, "STORE_TIMEOUT_S", 1.0)
    config = make_config(tmp_path, "silent", storage=f"{scheme}:{SECRET}@127.0.0.1:{silent_port}/x")
    started = time.monotonic()
    with pytest.raises(UserError) as error:
        open_study(config)
    assert time.monotonic() - started < 10
    assert "\n" not in str(error.value) and "--storage" in str(error.value) and SECRET not in str(error.value)


def test_a_wrong_password_is_not_echoed(tmp_path):
    config = make_config(tmp_path, "pw", storage=f"mysql+pymysql://root:{SECRET}@127.0.0.1:3306/nope")
    with pytest.raises(UserError) as error:
        open_study(config)
    assert "cannot be opened" in str(error.value) and SECRET not in str(error.value) and "root:***@" in str(error.value)
    tracking = make_config(tmp_path, "pw2", tracking_uri=f"postgresql://postgres:{SECRET}@127.0.0.1:1/none")
    with pytest.raises(UserError) as error:
        cli.run_sweep(tracking, log=lambda line: None)
    assert SECRET not in str(error.value)


def test_a_storage_password_is_never_printed_or_stored(tmp_path, postgres_databases, tracking, fake_training):
    storage = postgres_databases().replace("postgres@", f"postgres:{SECRET}@")  # trust auth: accepted
    config = make_config(tmp_path, "secret", storage=storage, tracking_uri=tracking)
    lines = []
    assert cli.run_sweep(config, log=lines.append) == 0
    printed = "\n".join(lines)
    assert "postgres:***@" in printed and SECRET not in printed
    assert SECRET not in (tmp_path / "secret" / "trials.md").read_text()
    client = mlflow.MlflowClient(tracking)
    experiment = client.get_experiment_by_name(config.experiment).experiment_id
    for run in client.search_runs([experiment]):
        if run.data.tags.get("sweep.study") == "secret":
            assert SECRET not in repr(run.data.tags) + repr(run.data.params)
    (parent,) = [
        r
        for r in client.search_runs([experiment])
        if r.data.tags.get("sweep.role") == "parent" and r.data.tags.get("sweep.study") == "secret"
    ]
    assert parent.data.tags["sweep.storage"] == storage.replace(SECRET, "***")
    stored = Path(client.download_artifacts(parent.info.run_id, "trials.md", str(tmp_path)))
    assert SECRET not in stored.read_text()
    assert SECRET not in repr(optuna.load_study(study_name="secret", storage=storage).user_attrs)


def test_a_study_refuses_other_seeds_or_another_base_config(tmp_path, tracking):
    storage = sqlite_url(tmp_path / "optuna.db")
    first = make_config(tmp_path, "design", storage=storage, tracking_uri=tracking)
    open_study(first)
    seeds = make_config(tmp_path, "design", storage=storage, seeds_per_trial=2)
    with pytest.raises(ConfigError, match=r"seeds_per_trial 1 \(here 2\)"):
        open_study(seeds)
    base = make_config(tmp_path, "design", {**FAST, "run.steps": 3, "loss.eps_low": 0.3}, storage=storage)
    with pytest.raises(ConfigError, match=r"loss.eps_low \(default\) \(here 0.3\); run.steps 2 \(here 3\)"):
        open_study(base)
    # where things go, how they are named and the CPU threads do not change results
    same = {**FAST, "run.threads": 2, "run.checkpoint_every": 1, "run.tags": {"a": "b"}}
    open_study(make_config(tmp_path / "elsewhere", "design", same, storage=storage, experiment="other"))


def test_a_study_made_before_the_base_config_was_remembered_still_opens(tmp_path):
    config = make_config(tmp_path, "legacy", storage=sqlite_url(tmp_path / "optuna.db"))
    old = optuna.create_study(study_name="legacy", storage=config.storage_url, direction="maximize")
    old.set_user_attr(
        "design", {"space": "ce_gppo", "mode": "grid", "objective": "accuracy_gain", "grid": {"loss.beta1": [0.0]}}
    )
    reopened = open_study(config)
    assert reopened.user_attrs["design"]["seeds_per_trial"] == 1 and "base_config" in reopened.user_attrs["design"]
    with pytest.raises(ConfigError, match="loss.beta1"):
        open_study(make_config(tmp_path, "legacy", storage=config.storage_url, grid={"loss.beta1": [0.5]}))


def test_an_unwritable_output_folder_is_refused_before_any_run(tmp_path, tracking):
    (tmp_path / "afile").write_text("in the way")
    config = make_config(
        tmp_path,
        "ro",
        output_dir=str(tmp_path / "afile" / "sub"),
        storage=sqlite_url(tmp_path / "st" / "o.db"),
        tracking_uri=tracking,
        experiment="unwritable",
    )
    with pytest.raises(ConfigError) as error:
        cli.run_sweep(config, log=lambda line: None)
    message = str(error.value)
    assert "\n" not in message and "[Errno" not in message and "afile/sub" in message and "Not a directory" in message
    assert mlflow.MlflowClient(tracking).get_experiment_by_name("unwritable") is None  # no parent run
    assert not (tmp_path / "st").exists()


def test_a_study_name_with_quotes_finds_its_parent_and_closes_dead_trials(tmp_path, tracking, fake_training):
    config = make_config(tmp_path, "it's", tracking_uri=tracking)
    assert cli.run_sweep(config, log=lambda line: None) == 0
    study_ = open_study(config)
    parent = parent_run(config, study_)
    assert parent == parent_run(config, study_) == study_.user_attrs["mlflow_parent_run_id"]
    client = RetryingClient(tracking)
    experiment = get_or_create_experiment(client, config.experiment, tracking)
    orphan = client.create_run(experiment, tags={"sweep.study": "it's", "sweep.trial": "0"}).info.run_id
    close_dead_trial(config)(study_, study_.get_trials()[0])
    assert client.get_run(orphan).info.status == "KILLED"
    assert study_.get_trials()[-1].state.name == "WAITING"


def test_sweeps_build_no_mlflow_filter_of_their_own():
    """Every tag search goes through harness.tracking's quoting helpers (search_tagged, tagged_runs)."""
    for path in Path(cli.__file__).parent.glob("*.py"):
        assert "search_runs(" not in path.read_text(), path
