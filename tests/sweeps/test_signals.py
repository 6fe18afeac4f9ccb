"""A sweep killed or stopped mid-trial, then the same command once: every grid point once, nothing RUNNING.

The first command is a real `harness sweep` process with a real worker process whose training is a
fake that takes a minute (tests/sweeps/fake_worker.py); the re-run runs its workers in this process
(tests/sweeps/test_recovery.py: in_process_workers), so each case costs the start of two processes."""

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import mlflow
import optuna
import pytest
from optuna.trial import TrialState

from harness.common.uris import sqlite_url
from harness.tracking import check_store
from sweeps import objective as objective_module
from sweeps import sweep_command as cli
from sweeps.config import load_sweep_config

HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location("fake_worker", HERE / "fake_worker.py")
fake_worker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_worker)
BETA1 = [0.0, 0.5]


@pytest.fixture(scope="module")
def tracking(tmp_path_factory):
    """One MLflow store for the module, made once (a fresh SQLite store costs seconds of migrations)."""
    uri = sqlite_url(tmp_path_factory.mktemp("mlflow") / "mlflow.db")
    check_store(uri)
    return uri


def start_sweep(tmp_path, tracking, name, slow="trial0000"):
    """`harness sweep` in its own session, its worker training trial `slow` for minutes; returns
    (process, config, worker PID) once that trial trains. A long grace period: only the process
    check can find the dead trial fast."""
    data = {
        "study_name": name,
        "grid": {"loss.beta1": BETA1, "loss.beta2": [1.0]},
        "output_dir": str(tmp_path / name),
        "tracking_uri": tracking,
        "heartbeat_interval": 60,
        "grace_period": 600,
        "overrides": {"run.steps": 2, "warmstart.steps": 0},
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(json.dumps(data))
    env = {**os.environ, "PYTHONPATH": str(HERE), "FAKE_TRAIN_SECONDS": "120", "FAKE_TRAIN_SLOW": slow}
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "fake_sweep.py"), "sweep", "--config", str(path)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    started = tmp_path / name / "trials" / f"{slow}-seed0" / "started"
    deadline = time.monotonic() + 240
    while not started.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.2)
    return proc, load_sweep_config(str(path), {}, {}), int(started.read_text())


def gone(pid: int, seconds: float) -> bool:
    """The process ended within `seconds` (a zombie that no init reaps counts as ended)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except OSError:
            return True
        time.sleep(0.2)
    return False


def trials(config):
    return optuna.load_study(study_name=config.study_name, storage=config.storage_url).get_trials()


def runs_by_status(config):
    client = mlflow.MlflowClient(config.mlflow_uri)
    experiment = client.get_experiment_by_name(config.experiment).experiment_id
    statuses = {}
    for run in client.search_runs([experiment], max_results=1000):
        if run.data.tags.get("sweep.study") == config.study_name:
            statuses.setdefault(run.info.status, []).append(run)
    return statuses


def rerun_once(config, monkeypatch):
    """The same command, once, with in-process workers and instant training; it must finish the study."""
    monkeypatch.setattr(cli, "start_workers", fake_worker.in_process_workers)
    monkeypatch.setattr(objective_module, "train", fake_worker.fake_train)
    monkeypatch.delenv("FAKE_TRAIN_SECONDS", raising=False)
    started = time.monotonic()
    lines = []
    assert cli.run_sweep(config, log=lines.append) == 0, "\n".join(lines)
    assert time.monotonic() - started < 120  # not the 600 s grace period
    complete = [t for t in trials(config) if t.state == TrialState.COMPLETE]
    assert sorted(t.params["loss.beta1"] for t in complete) == BETA1  # every point once
    assert not [t for t in trials(config) if t.state in (TrialState.RUNNING, TrialState.WAITING)]
    statuses = runs_by_status(config)
    assert "RUNNING" not in statuses, [r.info.run_name for r in statuses["RUNNING"]]
    assert len(statuses["FINISHED"]) == 3  # the parent and one run per grid point
    return lines


@pytest.mark.timeout(400)
def test_sigkill_of_the_whole_sweep_then_the_same_command_once(tmp_path, tracking, monkeypatch):
    proc, config, worker = start_sweep(tmp_path, tracking, "killall", slow="trial0001")  # killed in the second trial
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert gone(worker, 10)
    assert [t.state for t in trials(config)] == [TrialState.COMPLETE, TrialState.RUNNING]  # nothing recorded
    rerun_once(config, monkeypatch)
    assert len(runs_by_status(config)["KILLED"]) == 1  # the killed trial's run, closed by the re-run
    assert len(list((tmp_path / "killall" / "trials").glob("trial0000-*"))) == 1  # trial 0 was not run again


@pytest.mark.timeout(400)
def test_sigterm_of_the_whole_sweep_fails_the_trial_for_a_retry(tmp_path, tracking, monkeypatch):
    proc, config, worker = start_sweep(tmp_path, tracking, "termall")
    os.killpg(proc.pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "run the same command again to continue" in out
    (trial0, retry) = trials(config)
    assert trial0.state == TrialState.FAIL and trial0.user_attrs["environment_failure"].startswith("interrupted")
    assert retry.state == TrialState.WAITING and retry.system_attrs["retry_history"] == [0]
    statuses = runs_by_status(config)
    assert sorted(r.data.tags["sweep.role"] for r in statuses["KILLED"]) == ["parent", "trial"]
    assert "RUNNING" not in statuses
    lines = rerun_once(config, monkeypatch)
    assert "retry of trial 0" in "\n".join(lines)


@pytest.mark.timeout(400)
def test_workers_end_with_a_sigkilled_sweep_and_the_same_command_finishes(tmp_path, tracking, monkeypatch):
    proc, config, worker = start_sweep(tmp_path, tracking, "killmain")
    os.kill(proc.pid, signal.SIGKILL)  # the main process only: its worker gets the parent-death signal
    proc.wait()
    assert gone(worker, 30), "the worker outlived its sweep"
    trial0 = trials(config)[0]
    assert trial0.state == TrialState.FAIL  # the worker closed its trial itself
    assert [r.data.tags["sweep.role"] for r in runs_by_status(config)["KILLED"]] == ["trial"]
    rerun_once(config, monkeypatch)


def test_a_worker_is_interrupted_once_and_records_later_signals(monkeypatch):
    """The first SIGTERM ends the trial; the parent's terminate that follows must not cut short its bookkeeping."""
    from harness.common import processes
    from sweeps.worker import interrupt_once

    monkeypatch.setattr(processes, "_received", [])  # this process's record, as it was after the test
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        interrupt_once()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs between bytecodes
        os.kill(os.getpid(), signal.SIGTERM)  # recorded, raises nothing
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)
        assert processes.termination_requested()
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
