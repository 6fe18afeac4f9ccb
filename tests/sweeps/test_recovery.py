"""sweeps.recovery: trials failed by their environment (dead or interrupted workers, a full disk) are
retried, never counted as done; with fake training (tests/sweeps/fake_worker.py), in seconds."""

import errno
import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import mlflow
import optuna
import pytest
from optuna.trial import TrialState

from harness.common.uris import sqlite_url
from sweeps import objective as objective_module
from sweeps import sweep_command as cli
from sweeps.config import load_sweep_config
from sweeps.objective import run_trial
from sweeps.recovery import EnvironmentFailure, environment_cause, process_gone, process_identity
from sweeps.study import count_trials, open_study, run_worker

_spec = importlib.util.spec_from_file_location("fake_worker", Path(__file__).with_name("fake_worker.py"))
fake_worker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_worker)

FAST = {"run.steps": 2, "warmstart.steps": 0}
BETA1 = [0.0, 0.5]


@pytest.fixture(scope="module")
def tracking(tmp_path_factory):
    """One MLflow store for the module (a fresh SQLite store costs seconds of migrations)."""
    return sqlite_url(tmp_path_factory.mktemp("mlflow") / "mlflow.db")


def make_config(tmp_path, tracking, name, **values):
    grid = values.pop("grid", {"loss.beta1": BETA1, "loss.beta2": [1.0]})
    base = {"study_name": name, "grid": grid, "output_dir": str(tmp_path / name), "tracking_uri": tracking}
    return load_sweep_config(None, {**base, **values}, FAST)


def states(config):
    study = optuna.load_study(study_name=config.study_name, storage=config.storage_url)
    return [t.state for t in study.get_trials()]


def points_done_once(config):
    study = optuna.load_study(study_name=config.study_name, storage=config.storage_url)
    complete = [t.params["loss.beta1"] for t in study.get_trials() if t.state == TrialState.COMPLETE]
    return sorted(complete) == BETA1 and not [t for t in study.get_trials() if t.state == TrialState.RUNNING]


def parent_status(config):
    client = mlflow.MlflowClient(config.mlflow_uri)
    study = optuna.load_study(study_name=config.study_name, storage=config.storage_url)
    return client.get_run(study.user_attrs["mlflow_parent_run_id"]).info.status


@pytest.mark.parametrize(
    "error, expected",
    [
        (OSError(errno.ENOSPC, "No space left on device", "/full/x.ckpt"), "No space left on device: /full/x.ckpt"),
        (OSError(errno.EROFS, "Read-only file system"), "Read-only file system: /out/trials"),
        (RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 2 vs 1"), "is the disk full?"),
        (KeyboardInterrupt(), "interrupted"),
        (SystemExit(1), "interrupted"),
    ],
)
def test_failures_of_the_environment_are_named_with_their_path(error, expected):
    assert expected in environment_cause(error, Path("/out/trials"))


def test_a_trials_own_failure_is_not_the_environments():
    assert environment_cause(ValueError("loss is nan"), Path("/out")) is None
    assert environment_cause(FileNotFoundError(errno.ENOENT, "No such file", "/data.jsonl"), Path("/out")) is None
    wrapped = RuntimeError("checkpoint failed")
    wrapped.__cause__ = OSError(errno.ENOSPC, "No space left on device", "/full/y")
    assert environment_cause(wrapped, Path("/out")) == "No space left on device: /full/y"


def test_a_process_is_known_by_its_pid_and_start_time():
    me = process_identity()
    assert process_gone(me) is False
    assert process_gone({**me, "start": "1"}) is True  # the PID now belongs to another process
    assert process_gone({**me, "host": "elsewhere"}) is None  # another machine: only its heartbeat tells
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    assert process_gone({**me, "pid": finished.pid}) is True


def test_a_full_disk_fails_the_trial_for_a_retry_and_stops_the_worker(tmp_path, tracking, monkeypatch):
    config = make_config(tmp_path, tracking, "full")
    monkeypatch.setenv("FAKE_TRAIN_FAIL", "enospc")
    monkeypatch.setattr(objective_module, "train", fake_worker.fake_train)
    with pytest.raises(EnvironmentFailure, match=r"trial 0: No space left on device: .*/full/trials/trial0000"):
        run_worker(config, run_trial, log=lambda line: None)
    study = open_study(config)
    (failed, retry) = study.get_trials()  # the worker stopped: trial 1 was not started on a full disk
    assert failed.state == TrialState.FAIL and "No space left" in failed.user_attrs["environment_failure"]
    assert retry.state == TrialState.WAITING and retry.system_attrs["retry_history"] == [0]
    assert count_trials(study)[0] == 0  # not counted as done
    monkeypatch.delenv("FAKE_TRAIN_FAIL")  # space freed
    run_worker(config, run_trial, log=lambda line: None)
    assert points_done_once(config)
    retried = open_study(config).get_trials()[1]
    assert retried.params == failed.params and "environment_failure" not in retried.user_attrs


def test_a_sweep_on_a_full_disk_exits_non_zero_and_the_same_command_runs_the_point(tmp_path, tracking, monkeypatch):
    config = make_config(tmp_path, tracking, "fullsweep")
    monkeypatch.setattr(cli, "start_workers", fake_worker.in_process_workers)
    monkeypatch.setattr(objective_module, "train", fake_worker.fake_train)
    monkeypatch.setenv("FAKE_TRAIN_FAIL", "zip")  # torch's own words for a full disk
    with pytest.raises(EnvironmentFailure) as failure:
        cli.run_sweep(config, log=lambda line: None)
    message = str(failure.value)
    assert "\n" not in message and "trial 0: could not write under" in message and "is the disk full?" in message
    assert str(tmp_path / "fullsweep" / "trials") in message and "run the same command again" in message
    assert parent_status(config) == "FAILED"
    monkeypatch.delenv("FAKE_TRAIN_FAIL")
    lines = []
    assert cli.run_sweep(config, log=lines.append) == 0
    assert points_done_once(config) and parent_status(config) == "FINISHED"
    assert "retry of trial 0" in "\n".join(lines)


def test_a_dead_workers_trial_on_this_machine_is_retried_at_once(tmp_path, tracking, monkeypatch):
    """SIGKILL leaves a RUNNING trial with a fresh heartbeat: the next worker sees its process is gone."""
    config = make_config(tmp_path, tracking, "dead", heartbeat_interval=60, grace_period=600)
    study = open_study(config)
    trial = study.ask()
    trial.suggest_float("loss.beta1", 0, 1)
    trial.suggest_float("loss.beta2", 0, 1.5)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    trial.set_user_attr("worker_process", {**process_identity(), "pid": dead.pid})
    study._storage.record_heartbeat(trial._trial_id)
    monkeypatch.setattr(objective_module, "train", fake_worker.fake_train)
    started = time.monotonic()
    run_worker(config, run_trial, log=lambda line: None)
    assert time.monotonic() - started < 60  # not the 600 s grace period
    assert points_done_once(config)
    assert states(config).count(TrialState.FAIL) == 1
