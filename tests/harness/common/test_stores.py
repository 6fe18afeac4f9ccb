"""harness.common.stores: a store of the other library is refused before anything is written to it."""

import hashlib
import re
import sqlite3
import time

import pytest

from harness.common.errors import TrackingError
from harness.common.stores import check_database, refuse_foreign_store, table_names
from harness.common.uris import sqlite_url


def _make(path, tables):
    with sqlite3.connect(path) as db:
        for name in tables:
            db.execute(f"create table {name} (x)")


def _md5(path):
    return hashlib.md5(path.read_bytes()).hexdigest()


def test_a_missing_or_empty_sqlite_file_is_anyones(tmp_path):
    refuse_foreign_store(sqlite_url(tmp_path / "none.db"), "optuna", "--storage")
    assert not (tmp_path / "none.db").exists()  # looking does not create it
    _make(tmp_path / "mine.db", ["studies", "trials", "version_info", "alembic_version"])
    refuse_foreign_store(sqlite_url(tmp_path / "mine.db"), "optuna", "--storage")


@pytest.mark.parametrize(
    "owner, tables, found",
    [
        ("optuna", ["experiments", "runs", "metrics", "params", "tags", "alembic_version"], "an MLflow tracking store"),
        ("mlflow", ["studies", "trials", "version_info", "alembic_version"], "an Optuna study storage"),
        ("mlflow", ["customers"], "other tables (customers)"),
    ],
)
def test_a_foreign_store_is_refused_and_left_untouched(tmp_path, owner, tables, found):
    path = tmp_path / "other?db.sqlite"
    _make(path, tables)
    before = _md5(path)
    with pytest.raises(TrackingError, match=rf"holds {re.escape(found)}.*nothing was written"):
        refuse_foreign_store(sqlite_url(path), owner, "the store")
    assert _md5(path) == before
    assert table_names(sqlite_url(path)) == set(tables)


def test_a_silent_database_port_fails_in_seconds(silent_port):
    for url in (f"postgresql://postgres@127.0.0.1:{silent_port}/x", f"mysql+pymysql://root@127.0.0.1:{silent_port}/x"):
        started = time.monotonic()
        with pytest.raises(Exception):  # noqa: B017  the driver's timeout or ours
            check_database(url, timeout_s=1)
        assert time.monotonic() - started < 8
