"""harness.tracking: stores checked in seconds, experiments and writes safe under concurrency,
runs never left RUNNING, and no metric recorded twice for one step after a resume."""

import re
import socket
import subprocess
import sys
import time

import mlflow
import pytest

from harness import tracking
from harness.tracking import (
    FAILURE_TAG,
    RetryingClient,
    RunLogger,
    TrackingError,
    check_store,
    close_orphan,
    get_or_create_experiment,
    tracked_run,
)


@pytest.mark.parametrize(
    "uri, message",
    [
        ("http://127.0.0.1:9", "no MLflow server answers at http://127.0.0.1:9"),
        ("garbage://x", "tracking URI 'garbage://x' is not supported"),
        ("::::", "tracking URI '::::' is not supported"),
        ("./mlruns", "is not supported"),
        ("sqlite:///", "names no database file"),
        ("sqlite:////proc/no/such/mlflow.db", "cannot use the SQLite store /proc/no/such/mlflow.db"),
        ("http://", "has no host"),
        ("postgresql://u:p@127.0.0.1:9/db", "cannot open the tracking database postgresql://127.0.0.1: "),
        ("mysql+pymysql://root@127.0.0.1:9/db", "cannot open the tracking database mysql+pymysql://127.0.0.1: "),
    ],
)
def test_bad_stores_fail_in_seconds_with_one_line(uri, message):
    started = time.monotonic()
    with pytest.raises(TrackingError) as error:
        check_store(uri)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("scheme", ["mysql+pymysql", "postgresql"])
def test_a_database_port_that_accepts_and_stays_silent_fails_in_seconds(scheme):
    with socket.socket() as silent:  # listens, never answers: a wrong port or a hung server
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        uri = f"{scheme}://u:p@127.0.0.1:{silent.getsockname()[1]}/db"
        started = time.monotonic()
        with pytest.raises(
            TrackingError, match=rf"cannot open the tracking database {re.escape(scheme)}://127.0.0.1: "
        ):
            check_store(uri, timeout_s=2.0)
        assert time.monotonic() - started < 20  # MySQL's driver alone would wait forever


def test_a_server_is_checked_through_its_health_endpoint(mlflow_server):
    check_store(mlflow_server)


def test_sqlite_store_is_created_with_its_folder(tmp_path):
    uri = f"sqlite:///{tmp_path}/deep/er/mlflow.db"
    check_store(uri)
    assert (tmp_path / "deep" / "er" / "mlflow.db").is_file()


CREATE = """
import sys
from harness.tracking import RetryingClient, check_store, get_or_create_experiment
uri = sys.argv[1]
check_store(uri)
client = RetryingClient(uri)
print(get_or_create_experiment(client, "shared", uri))
"""


def test_four_processes_create_one_experiment_on_a_fresh_store(tmp_path):
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    procs = [
        subprocess.Popen([sys.executable, "-c", CREATE, uri], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outputs = [p.communicate(timeout=240) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-2000:] for _, err in outputs]
    ids = {out.strip() for out, _ in outputs}
    assert len(ids) == 1
    assert {e.name for e in mlflow.MlflowClient(uri).search_experiments()} == {"shared", "Default"}


class Flaky:
    """A client method that reports a locked database `failures` times, then succeeds."""

    def __init__(self, failures: int, message: str = "(sqlite3.OperationalError) database is locked"):
        self.failures, self.calls, self.message = failures, 0, message

    def search_experiments(self, **kwargs):
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError(self.message)
        return ["ok"]


def test_busy_store_is_retried_then_reported(tmp_path, monkeypatch):
    client = RetryingClient(f"sqlite:///{tmp_path}/m.db")
    client._client = Flaky(3)
    assert client.search_experiments(max_results=1) == ["ok"] and client._client.calls == 4

    monkeypatch.setattr(tracking, "RETRY_SECONDS", 0.3)
    client._client = Flaky(10**6)
    with pytest.raises(TrackingError, match="stayed busy .* use an `mlflow server` backed by PostgreSQL"):
        client.search_experiments()
    client._client = Flaky(1, "no such table: experiments")  # not transient: raised at once
    with pytest.raises(RuntimeError, match="no such table"):
        client.search_experiments()
    assert client._client.calls == 1


def test_deleted_experiment_is_a_one_line_error(tmp_path):
    uri = f"sqlite:///{tmp_path}/m.db"
    check_store(uri)
    client = RetryingClient(uri)
    client.delete_experiment(get_or_create_experiment(client, "gone", uri))
    with pytest.raises(TrackingError, match="experiment 'gone' is deleted"):
        get_or_create_experiment(client, "gone", uri)


def test_resumed_logger_keeps_the_first_record_of_each_step(tmp_path):
    uri = f"sqlite:///{tmp_path}/m.db"
    check_store(uri)
    first = RunLogger(uri, "e", "r")
    for step in range(6):
        first.log_metrics({"reward_mean": float(step), "entropy": 1.0}, step=step)
    first.log_metrics({"reward_mean": 99.0}, step=3)  # a plain logger records duplicates
    run_id = first.run_id
    resumed = RunLogger(uri, "e", "r", run_id=run_id)  # the checkpoint held steps 0-3
    for step in range(4, 9):
        resumed.log_metrics({"reward_mean": 10.0 + step, "entropy": 2.0, "val": 0.5}, step=step)
    client = mlflow.MlflowClient(uri)
    history = sorted((m.step, m.value) for m in client.get_metric_history(run_id, "reward_mean"))
    assert history == [
        (0, 0.0),
        (1, 1.0),
        (2, 2.0),
        (3, 3.0),
        (3, 99.0),
        (4, 4.0),
        (5, 5.0),
        (6, 16.0),
        (7, 17.0),
        (8, 18.0),
    ]
    assert [m.step for m in client.get_metric_history(run_id, "val")] == [4, 5, 6, 7, 8]


def test_terminate_records_outcome_and_reason_and_lightning_finalize_does_not(tmp_path):
    uri = f"sqlite:///{tmp_path}/m.db"
    check_store(uri)
    logger = RunLogger(uri, "e", "r")
    logger.log_metrics({"x": 1.0}, step=0)
    logger.finalize("success")  # what Lightning calls when fit ends: the run is not done yet
    client = mlflow.MlflowClient(uri)
    assert client.get_run(logger.run_id).info.status == "RUNNING"
    logger.terminate("FAILED", "ValueError: boom")
    run = client.get_run(logger.run_id)
    assert run.info.status == "FAILED" and run.data.tags[FAILURE_TAG] == "ValueError: boom"
    logger.reopen()
    assert client.get_run(logger.run_id).info.status == "RUNNING"


def test_orphaned_running_run_is_closed_as_killed(tmp_path):
    uri = f"sqlite:///{tmp_path}/m.db"
    check_store(uri)
    logger = RunLogger(uri, "e", "r")
    run_id = logger.run_id
    assert close_orphan(uri, run_id, "killed before a checkpoint")
    run = mlflow.MlflowClient(uri).get_run(run_id)
    assert run.info.status == "KILLED" and run.data.tags[FAILURE_TAG] == "killed before a checkpoint"
    assert not close_orphan(uri, run_id, "again")  # only RUNNING runs are touched
    assert not close_orphan(uri, "0" * 32, "unknown")


def test_tracked_run_ends_with_the_outcome_of_its_block(tmp_path):
    uri = f"sqlite:///{tmp_path}/m.db"
    check_store(uri)
    with tracked_run(uri, "eval", "ok", params={"k": 4}) as ok:
        mlflow.log_metric("acc", 0.5)
    with pytest.raises(ZeroDivisionError), tracked_run(uri, "eval", "bad") as bad:
        raise ZeroDivisionError("division by zero")
    with tracked_run(uri, "eval", "parent") as parent, tracked_run(uri, "eval", "child", parent_run_id=parent) as child:
        pass
    client = mlflow.MlflowClient(uri)
    assert client.get_run(ok).info.status == "FINISHED" and client.get_run(ok).data.params == {"k": "4"}
    failed = client.get_run(bad)
    assert failed.info.status == "FAILED" and "ZeroDivisionError" in failed.data.tags[FAILURE_TAG]
    assert client.get_run(child).data.tags["mlflow.parentRunId"] == parent
