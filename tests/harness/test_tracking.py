"""harness.tracking: stores checked in seconds, experiments and writes safe under concurrency,
runs never left RUNNING, and no metric recorded twice for one step after a resume; stores that
are missing (for a reader), a folder, or another library's database refused, nothing written.

MLflow's schema migrations take seconds on a fresh SQLite file: tests that only need a store use a
copy of one made per module (`copied_store`)."""

import hashlib
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time

import mlflow
import pytest

from harness import tracking
from harness.common.stores import OWN_TABLES, table_names
from harness.tracking import (
    FAILURE_TAG,
    RetryingClient,
    TrackingError,
    check_store,
    close_orphan,
    get_or_create_experiment,
    tracked_run,
)
from harness.training.run_logger import RunLogger


@pytest.fixture(scope="module")
def empty_store(tmp_path_factory):
    """The file of a fresh, empty MLflow store (copy it, never write to it), made with its folders."""
    path = tmp_path_factory.mktemp("template") / "deep" / "er" / "mlflow.db"
    check_store(f"sqlite:///{path}")
    return path


def copied_store(empty_store, folder) -> str:
    """The URI of a copy of the empty store in `folder`."""
    shutil.copy(empty_store, folder / "m.db")
    return f"sqlite:///{folder}/m.db"


def _md5(path):
    return hashlib.md5(path.read_bytes()).hexdigest()


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


def test_sqlite_store_is_created_with_its_folder(empty_store):
    assert empty_store.is_file() and empty_store.parent.name == "er"  # made by check_store in deep/er/
    assert OWN_TABLES["mlflow"] <= table_names(f"sqlite:///{empty_store}")


def test_a_reader_refuses_a_missing_sqlite_store_and_creates_nothing(tmp_path):
    for missing in (tmp_path / "nope" / "none.db", tmp_path / "none.db"):
        with pytest.raises(TrackingError) as error:
            check_store(f"sqlite:///{missing}", create=False)
        assert str(error.value).startswith(f"no tracking store at {missing}; nothing was created")
    assert list(tmp_path.iterdir()) == []


def test_a_reader_refuses_a_file_without_mlflow_tables_and_leaves_it(tmp_path):
    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(TrackingError, match="no tracking store at .*empty.db .the file holds no MLflow tables"):
        check_store(f"sqlite:///{empty}", create=False)
    assert empty.stat().st_size == 0 and [p.name for p in tmp_path.iterdir()] == ["empty.db"]


def test_a_reader_opens_an_existing_store_without_a_lock_file(empty_store, tmp_path):
    uri = copied_store(empty_store, tmp_path)
    before = _md5(tmp_path / "m.db")
    check_store(uri, create=False)
    assert [p.name for p in tmp_path.iterdir()] == ["m.db"] and _md5(tmp_path / "m.db") == before


@pytest.mark.parametrize("create", [True, False])
def test_a_folder_as_the_database_or_a_file_as_its_folder_is_refused_at_once(tmp_path, create):
    """MLflow retried "unable to open database file" for minutes on a folder."""
    (tmp_path / "y").mkdir()
    (tmp_path / "notes.txt").write_text("a file")
    started = time.monotonic()
    with pytest.raises(
        TrackingError, match=r"names the folder .*/y, not a database file; use sqlite:///.*/y/mlflow.db"
    ):
        check_store(f"sqlite:///{tmp_path}/y", create=create)
    with pytest.raises(TrackingError, match=r"notes.txt is a file, not a folder that can hold mlflow.db$"):
        check_store(f"sqlite:///{tmp_path}/notes.txt/deeper/mlflow.db", create=create)
    assert time.monotonic() - started < 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "y"] and not any((tmp_path / "y").iterdir())


OPTUNA = [  # the tables of an Optuna storage (those refuse_foreign_store looks for) and its revision
    *(f"create table {table} (x)" for table in ("studies", "trials", "version_info")),
    "create table alembic_version (version_num varchar(32) not null primary key)",
    "insert into alembic_version values ('v3.2.0.a')",
]
FOREIGN = {"an Optuna study storage": OPTUNA, "other tables (customers)": ["create table customers (name text)"]}


@pytest.mark.parametrize("create", [True, False])
@pytest.mark.parametrize("found", list(FOREIGN))
def test_a_foreign_sqlite_database_is_refused_before_mlflow_migrates_it(tmp_path, found, create):
    """MLflow added its tables to an Optuna database (md5 changed) before failing on its revision."""
    path = tmp_path / "optuna.db"
    with sqlite3.connect(path) as db:
        for statement in FOREIGN[found]:
            db.execute(statement)
    before = _md5(path)
    with pytest.raises(TrackingError, match=rf"holds {re.escape(found)}, not an MLflow tracking store; nothing was"):
        check_store(f"sqlite:///{path}", create=create)
    assert _md5(path) == before


def test_a_text_file_as_the_store_is_one_line_and_left_as_it_was(tmp_path):
    text = tmp_path / "notes.db"
    text.write_text("hello\n")
    for create in (True, False):
        with pytest.raises(TrackingError, match=r"notes.db is not a usable SQLite database \(file is not a database"):
            check_store(f"sqlite:///{text}", create=create)
    assert text.read_text() == "hello\n"


def test_a_schema_another_process_is_making_is_waited_for_not_refused(tmp_path, monkeypatch):
    """MySQL creates MLflow's tables one at a time: a second process may look in between."""
    path = tmp_path / "m.db"
    with sqlite3.connect(path) as db:
        db.execute("create table experiments (x)")
        db.execute("create table runs (x)")
    uri = f"sqlite:///{path}"
    monkeypatch.setattr(tracking, "SCHEMA_WAIT_S", 0.3)
    with pytest.raises(TrackingError, match=r"holds other tables \(experiments, runs\)"):  # never completed
        tracking._refuse_foreign(uri)

    def finish():
        time.sleep(0.2)
        with sqlite3.connect(path) as db:
            for table in ("metrics", "params", "tags"):
                db.execute(f"create table {table} (x)")

    monkeypatch.setattr(tracking, "SCHEMA_WAIT_S", 10.0)
    maker = threading.Thread(target=finish)
    maker.start()
    tracking._refuse_foreign(uri)
    maker.join()


def _pg_tables(url):
    import sqlalchemy

    engine = sqlalchemy.create_engine(url, poolclass=sqlalchemy.pool.NullPool)
    with engine.connect() as connection:
        tables = set(sqlalchemy.inspect(connection).get_table_names())
    engine.dispose()
    return tables


def test_a_foreign_or_empty_database_url_is_refused_untouched(postgres_databases):
    import sqlalchemy

    optuna_like = postgres_databases()
    engine = sqlalchemy.create_engine(optuna_like, poolclass=sqlalchemy.pool.NullPool)
    with engine.begin() as connection:
        for table in ("studies", "trials", "version_info", "alembic_version"):
            connection.execute(sqlalchemy.text(f"create table {table} (x integer)"))
    engine.dispose()
    for create in (True, False):
        with pytest.raises(TrackingError, match="holds an Optuna study storage, not an MLflow tracking store"):
            check_store(optuna_like, create=create)
    assert _pg_tables(optuna_like) == {"studies", "trials", "version_info", "alembic_version"}
    empty = postgres_databases()
    with pytest.raises(TrackingError, match=r"no tracking store at postgresql://.* .the database holds no MLflow"):
        check_store(empty, create=False)
    assert _pg_tables(empty) == set()


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


def test_busy_store_is_retried_then_reported(empty_store, tmp_path, monkeypatch):
    client = RetryingClient(copied_store(empty_store, tmp_path))
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


def test_deleted_experiment_is_a_one_line_error(empty_store, tmp_path):
    uri = copied_store(empty_store, tmp_path)
    client = RetryingClient(uri)
    client.delete_experiment(get_or_create_experiment(client, "gone", uri))
    with pytest.raises(TrackingError, match="experiment 'gone' is deleted"):
        get_or_create_experiment(client, "gone", uri)


def test_resumed_logger_keeps_the_first_record_of_each_step(empty_store, tmp_path):
    uri = copied_store(empty_store, tmp_path)
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


def test_terminate_records_outcome_and_reason_and_lightning_finalize_does_not(empty_store, tmp_path):
    uri = copied_store(empty_store, tmp_path)
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


def test_orphaned_running_run_is_closed_as_killed(empty_store, tmp_path):
    uri = copied_store(empty_store, tmp_path)
    logger = RunLogger(uri, "e", "r")
    run_id = logger.run_id
    assert close_orphan(uri, run_id, "killed before a checkpoint")
    run = mlflow.MlflowClient(uri).get_run(run_id)
    assert run.info.status == "KILLED" and run.data.tags[FAILURE_TAG] == "killed before a checkpoint"
    assert not close_orphan(uri, run_id, "again")  # only RUNNING runs are touched
    assert not close_orphan(uri, "0" * 32, "unknown")


def test_tracked_run_ends_with_the_outcome_of_its_block(empty_store, tmp_path):
    uri = copied_store(empty_store, tmp_path)
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
