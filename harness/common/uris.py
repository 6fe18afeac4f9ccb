"""Store addresses: the default tracking store, SQLite URLs that survive any path, and secrets kept out of sight.

    DEFAULT_TRACKING_URI                       # sqlite:///mlflow.db, the one-user default everywhere
    sqlite_url(Path("runs/q?x/optuna.db"))     # sqlite:////abs/runs/q%3Fx/optuna.db
    sqlite_path("sqlite:///runs/mlflow.db")    # Path('/abs/runs/mlflow.db'); None for other stores
    redact("mysql+pymysql://u:S3cret@db/x")    # 'mysql+pymysql://u:***@db/x'

SQLAlchemy (behind MLflow and Optuna) reads `?` in a database URL as the start of its query and
decodes `%xx`, so a folder named `q?x` would put the file at `q`. `sqlite_url` percent-encodes the
path; `sqlite_path` decodes it the way SQLAlchemy does, so both sides name the same file.

A password in a store URL must never be printed or stored: `redact` masks the password of every
URL in a text (user-info and `password=` style query parameters), for terminal lines, error
messages, MLflow params and tags, and the files a run writes. Only the connection itself gets the
real URL.
"""

from __future__ import annotations

import re
from pathlib import Path

DEFAULT_TRACKING_URI = "sqlite:///mlflow.db"
"""MLflow store used when none is given: a SQLite file in the current folder (one user, one machine)."""

MASK = "***"

HANDED_URI_ENV = "HARNESS_TABLE1_TRACKING_URI"
"""Environment variable through which a command hands its child processes a tracking URI that may hold a
password: argv is readable by every user of the machine (`ps`), a process's environment only by its owner."""

# scheme://user:PASSWORD@ ... SQLAlchemy reads everything up to the last '@' of the authority as the
# password (a '/' included); http(s) URLs end their authority at the first '/'.
_DB_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/@:]*:)(?P<secret>[^\s@]*)(?=@)")
_HTTP_USERINFO = re.compile(r"(?P<head>\bhttps?://[^\s/@:]*:)(?P<secret>[^\s/@]*)(?=@)", re.IGNORECASE)
_QUERY_SECRET = re.compile(
    r"(?P<head>[?&;](?:password|passwd|pwd|token|secret|api_key|apikey)=)(?P<secret>[^&;\s]*)", re.I
)


def redact(text: str) -> str:
    """`text` with the password of every URL in it replaced by ***; anything else unchanged."""
    if "://" not in text and "=" not in text:
        return text

    def mask(match: re.Match) -> str:
        return match["head"] + (MASK if match["secret"] else "")

    text = _HTTP_USERINFO.sub(mask, text)
    text = _DB_USERINFO.sub(lambda m: m[0] if m["head"].lower().startswith("http") else mask(m), text)
    return _QUERY_SECRET.sub(mask, text)


def has_secret(uri: str) -> bool:
    """Does `uri` hold a password (so that what is shown and stored must be its redacted form)?"""
    return redact(uri) != uri


def sqlite_url(path: str | Path) -> str:
    """The SQLAlchemy / MLflow / Optuna URL of the SQLite file `path` (made absolute), percent-encoded
    so that `?`, `#` and `%` in folder names stay part of the path."""
    from sqlalchemy.engine import URL

    return URL.create("sqlite", database=str(Path(path).expanduser().resolve())).render_as_string()


def sqlite_path(uri: str) -> Path | None:
    """The database file of a `sqlite:///...` URL as SQLAlchemy reads it (absolute); None for other
    stores or a URL that names no file."""
    if not uri.startswith("sqlite:///"):
        return None
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        database = make_url(uri).database
    except (ArgumentError, ValueError):
        return None
    return Path(database).expanduser().resolve() if database else None
