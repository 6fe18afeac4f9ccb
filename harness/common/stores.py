"""Database stores (MLflow's and Optuna's): reached in seconds, and never written when they belong to someone else.

    check_database("postgresql://u@db/optuna", timeout_s=5)     # one connection, drivers' timeouts
    engine_timeouts("mysql+pymysql://root@db/x", 5)             # connect_args for a long-lived engine
    refuse_foreign_store("sqlite:////abs/optuna.db", "optuna", "--storage")

Both MLflow and Optuna create their tables on first use and keep their schema version in a table
of the same name (`alembic_version`). Pointed at the other's database they add their tables
first and fail afterwards, so the other's file is changed (and an unrelated database gets
tables). `refuse_foreign_store` looks at the table names, read-only, before either library
touches the database, and refuses one that holds tables but not the ones the expected owner
creates.

A server that accepts connections and never answers would hang a plain connect for minutes:
`check_database` gives the drivers their own timeouts and a wall-clock deadline on top.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Literal
from urllib.parse import urlparse

from harness.common.errors import TrackingError, first_line
from harness.common.uris import redact, sqlite_path

# Tables each owner always creates; a database holding tables but not all of these is not theirs.
OWN_TABLES = {
    "mlflow": {"experiments", "runs", "metrics", "params", "tags"},
    "optuna": {"studies", "trials", "version_info"},
}
OWNER_NAMES = {"mlflow": "an MLflow tracking store", "optuna": "an Optuna study storage"}


def within(seconds: float, call, what: str = "no answer"):
    """Run `call` with a wall-clock deadline: TimeoutError when it has not returned in time (the call
    goes on in a daemon thread, which the process's exit ends), else what it returned or raised."""
    outcome: dict = {}

    def target() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:
            outcome["error"] = error

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeoutError(f"{what} within {seconds:.0f} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def engine_timeouts(url: str, timeout_s: float) -> dict:
    """The DB-API driver's own timeouts for `url` (connect_args of SQLAlchemy's create_engine), so that a
    server that is down, unreachable or silent fails in seconds. {} for drivers that have none."""
    seconds = max(1, int(timeout_s))
    scheme = urlparse(url).scheme.split("+")[0]
    return {  # connect_timeout alone does not cover a MySQL server that accepts and stays silent
        "postgresql": {"connect_timeout": seconds},
        "mysql": {"connect_timeout": seconds, "read_timeout": seconds, "write_timeout": seconds},
        "mssql": {"timeout": seconds},
    }.get(scheme, {})


def _database_tables(url: str, timeout_s: float) -> set[str]:
    import sqlalchemy

    engine = sqlalchemy.create_engine(
        url, connect_args=engine_timeouts(url, timeout_s), poolclass=sqlalchemy.pool.NullPool
    )
    try:
        with engine.connect() as connection:
            return set(sqlalchemy.inspect(connection).get_table_names())
    finally:
        engine.dispose()


def check_database(url: str, timeout_s: float = 5.0) -> None:
    """Open (and close) one connection to a database URL within about 3 x `timeout_s`; raises what the
    driver raises, or TimeoutError."""
    within(3 * timeout_s, lambda: _database_tables(url, timeout_s), "no answer from the database")


def table_names(url: str, timeout_s: float = 5.0) -> set[str]:
    """The tables of the database at `url`, read without writing anything; a SQLite file that does
    not exist yet has none."""
    db = sqlite_path(url)
    if url.startswith("sqlite:"):
        if db is None or not db.is_file():
            return set()
        with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=timeout_s) as connection:
            return {row[0] for row in connection.execute("select name from sqlite_master where type = 'table'")}
    return within(3 * timeout_s, lambda: _database_tables(url, timeout_s), "no answer from the database")


def refuse_foreign_store(url: str, owner: Literal["mlflow", "optuna"], what: str, timeout_s: float = 5.0) -> None:
    """TrackingError (nothing written) when the database at `url` holds tables but is not `owner`'s."""
    try:
        tables = table_names(url, timeout_s)
    except sqlite3.DatabaseError as error:  # not a database at all; the caller's own check says more
        raise TrackingError(f"{what} {redact(url)} is not a usable SQLite database ({error})") from None
    except TimeoutError as error:
        raise TrackingError(f"{what} {redact(url)}: {error}") from None
    except Exception as error:  # the caller's own check reports a connection failure in its words
        raise TrackingError(f"{what} {redact(url)} cannot be opened: {redact(first_line(error))}") from None
    if not tables or OWN_TABLES[owner] <= tables:
        return
    others = [name for name, own in OWN_TABLES.items() if name != owner and own <= tables]
    found = OWNER_NAMES[others[0]] if others else f"other tables ({', '.join(sorted(tables)[:5])})"
    raise TrackingError(
        f"{what} {redact(url)} holds {found}, not {OWNER_NAMES[owner]}; nothing was written to it. "
        "Give each store its own database"
    )
