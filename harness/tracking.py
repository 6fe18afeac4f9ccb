"""MLflow tracking that many processes can share: checked up front, retried under load, never left RUNNING.

    check_store("sqlite:///runs/mlflow.db")           # seconds, before any model is loaded
    with tracked_run(uri, "ce-gppo-eval", "eval-tiny") as run_id: ...   # evaluation, sweeps
    search_tagged(client, [experiment_id], {"table.row": "GRPO"})       # any tag text, quoted safely

Training logs through `harness.training.run_logger.RunLogger` (Lightning's MLFlowLogger on this module's
retrying client); this module imports neither Lightning nor torch, so commands that only check
or read a store answer in a second or two.

Stores: `sqlite:///path/mlflow.db` (one machine; artifacts go to `mlartifacts/` beside the file),
`http(s)://host:port` of an `mlflow server` (many processes or machines; back it with PostgreSQL
for many writers), or a database URL (`postgresql://...`, `mysql+pymysql://...`) used directly.

Concurrency: a fresh SQLite file is initialised (MLflow's schema migrations) by one process at a
time under a file lock; getting or creating an experiment tolerates another process creating it
at the same moment; every client call is retried with exponential backoff when the store is
momentarily busy ("database is locked"), and fails after about a minute with a message that
says to use an `mlflow server` for that many writers.

Runs: a run's outcome is always recorded (FINISHED, FAILED with its reason, KILLED). A run whose
process was killed is found by the next command in its output directory and marked KILLED
(`close_orphan`).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from harness.common.errors import TrackingError, first_line
from harness.common.stores import OWN_TABLES, check_database, refuse_foreign_store, table_names
from harness.common.uris import DEFAULT_TRACKING_URI, redact, sqlite_path, sqlite_url

RETRY_SECONDS = 60.0
SCHEMA_WAIT_S = 10.0  # how long a half-made MLflow schema (another process making it) is waited for
_TRANSIENT = ("database is locked", "database table is locked", "deadlock", "could not serialize", "busy")
FAILURE_TAG = "harness.failure_reason"
# the policy a run starts from, one line (harness.training.warmstart.starting_policy_label)
STARTING_POLICY_TAG = "starting_policy"


def _is_transient(error: Exception) -> bool:
    text = str(error).lower()
    return any(marker in text for marker in _TRANSIENT)


def artifact_root(tracking_uri: str, configured: str | None = None, beside: str | Path | None = None) -> str | None:
    """Where a new experiment of the store at `tracking_uri` keeps its runs' files; never ./mlruns
    of the current folder, MLflow's own default for a store without files.

    `configured` (a folder, made absolute, or a URI such as s3://bucket/x) wins. Otherwise: a SQLite
    store's artifacts go to mlartifacts/ beside its database file; a server's to its own artifact
    store (None: the server decides); a database store's (postgresql://, mysql://) to mlartifacts/
    beside the folder `beside` (a run's output directory), made absolute. A database store with
    neither is refused: no place could be chosen that does not depend on the current folder."""
    if configured:
        return configured if "://" in configured else Path(configured).expanduser().resolve().as_uri()
    db = sqlite_path(tracking_uri)
    if db is not None:
        return (db.parent / "mlartifacts").as_uri()
    if urlparse(tracking_uri).scheme.split("+")[0] not in ("postgresql", "mysql", "mssql"):
        return None
    if beside is not None:
        return (Path(beside).expanduser().resolve().parent / "mlartifacts").as_uri()
    raise TrackingError(
        f"the tracking store {redact(tracking_uri)} is a database and keeps no files: give new experiments "
        "a place for them with --run.artifact_root (harness train) or --artifact-root (harness eval, "
        "harness grader-audit)"
    )


def _client(uri: str):
    from mlflow import MlflowClient

    return MlflowClient(uri)


def _check_server(uri: str, timeout_s: float) -> None:
    health = uri.rstrip("/") + "/health"
    try:
        urllib.request.urlopen(health, timeout=timeout_s).read()
    except urllib.error.HTTPError as error:
        raise TrackingError(f"{uri} answered {error.code} to {health}: is it an MLflow server?") from None
    except (OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise TrackingError(
            f"no MLflow server answers at {uri} ({reason}); start one with `mlflow server --host 127.0.0.1 "
            f"--port 5000` or track locally with --tracking-uri {DEFAULT_TRACKING_URI}"
        ) from None


@contextlib.contextmanager
def _store_lock(db: Path, *, shared: bool = False) -> Iterator[None]:
    """A lock beside a SQLite file: only one process creates or migrates its schema (exclusive).

    `shared` (a reader) creates nothing: it waits on a writer's lock only when the lock file is
    already there, so that it never sees a schema half made."""
    lock = db.with_name(db.name + ".lock")
    if shared and not lock.is_file():
        yield
        return
    with open(lock, "r" if shared else "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _refuse_sqlite_location(uri: str, db: Path) -> None:
    """A folder where the database file goes, or a file where a folder of its path goes, is refused
    at once (MLflow would retry "unable to open database file" for minutes)."""
    if db.is_dir():
        raise TrackingError(
            f"tracking URI {uri!r} names the folder {db}, not a database file; use {sqlite_url(db / 'mlflow.db')}"
        )
    for parent in db.parents:
        if parent.exists() or parent.is_symlink():
            if not parent.is_dir():
                raise TrackingError(f"tracking URI {uri!r}: {parent} is a file, not a folder that can hold {db.name}")
            return


def _no_store(where: str, why: str = "") -> TrackingError:
    return TrackingError(
        f"no tracking store at {where}{why}; nothing was created. Check the path, or give the --tracking-uri "
        "of an existing store (a training run creates one)"
    )


def _refuse_foreign(uri: str, timeout_s: float = 5.0) -> None:
    """`refuse_foreign_store` for MLflow, patient with a schema another process is making right now
    (MySQL creates tables one at a time, outside a transaction): a database that holds some but not
    all of MLflow's own tables is looked at again for up to SCHEMA_WAIT_S before it is refused."""
    deadline = time.monotonic() + SCHEMA_WAIT_S
    while True:
        try:
            return refuse_foreign_store(uri, "mlflow", "tracking URI", timeout_s)
        except TrackingError:
            if time.monotonic() > deadline or not _partly_mlflow(uri, timeout_s):
                raise
            time.sleep(0.5)


def _partly_mlflow(uri: str, timeout_s: float) -> bool:
    """Does the database hold some of MLflow's own tables? False when it cannot be read (then the
    refusal's own message, "not a usable SQLite database" or "cannot be opened", stands)."""
    try:
        return bool(OWN_TABLES["mlflow"] & table_names(uri, timeout_s))
    except Exception:
        return False


def _check_sqlite(uri: str, create: bool) -> None:
    db = sqlite_path(uri)
    if db is None or not uri.removeprefix("sqlite:///"):
        raise TrackingError(f"tracking URI {uri!r} names no database file; use sqlite:///path/to/mlflow.db")
    _refuse_sqlite_location(uri, db)
    if not create and not db.is_file():
        raise _no_store(str(db))
    try:
        if create:
            db.parent.mkdir(parents=True, exist_ok=True)
        with _store_lock(db, shared=not create):
            _refuse_foreign(uri)  # before MLflow adds its tables to it
            if not create and not OWN_TABLES["mlflow"] <= table_names(uri):
                raise _no_store(str(db), " (the file holds no MLflow tables)")
            _client(uri).search_experiments(max_results=1)
    except TrackingError:
        raise
    except OSError as error:
        raise TrackingError(f"cannot use the SQLite store {db}: {error.strerror or error}") from None
    except Exception as error:  # MLflow wraps sqlite errors (not a database, read-only, ...)
        raise TrackingError(f"cannot use the SQLite store {db}: {first_line(error)}") from None


def _check_database_store(uri: str, timeout_s: float, create: bool) -> None:
    parsed = urlparse(uri)
    try:
        check_database(uri, timeout_s)  # MLflow's engine retries for minutes
        _refuse_foreign(uri, timeout_s)  # before MLflow adds its tables
        if not create and not OWN_TABLES["mlflow"] <= table_names(uri, timeout_s):
            raise _no_store(redact(uri), " (the database holds no MLflow tables)")
        _with_retries(lambda: _client(uri).search_experiments(max_results=1), uri)()
    except TrackingError:
        raise
    except Exception as error:
        raise TrackingError(
            f"cannot open the tracking database {parsed.scheme}://{parsed.hostname}: {first_line(error)}"
        ) from None


def check_store(uri: str, timeout_s: float = 5.0, *, create: bool = True) -> None:
    """Make sure the store at `uri` can be used, in seconds; raise TrackingError otherwise.

    SQLite: the folder is created and the schema initialised (once, under a lock). Server: its
    /health answers. Database URL: a connection is opened. A database that holds another
    library's tables (an Optuna storage) or anyone else's is refused before MLflow writes to it.
    With `create=False` (commands that only read, such as the leaderboard) a store that does not
    exist yet is refused instead, and nothing is created: no folder, database file, lock or tables."""
    parsed = urlparse(uri)
    scheme = parsed.scheme.split("+")[0]
    if scheme == "sqlite":
        _check_sqlite(uri, create)
    elif scheme in ("http", "https"):
        if not parsed.netloc:
            raise TrackingError(f"tracking URI {uri!r} has no host; use http://host:port")
        _check_server(uri, timeout_s)
    elif scheme in ("postgresql", "mysql", "mssql"):
        _check_database_store(uri, timeout_s, create)
    else:
        raise TrackingError(
            f"tracking URI {uri!r} is not supported; use sqlite:///path/mlflow.db, http://host:port of an "
            "mlflow server, or postgresql:// / mysql+pymysql:// database URLs"
        )


def _with_retries(call, uri: str):
    """`call` retried with exponential backoff while the store reports a transient failure."""

    @functools.wraps(call)
    def retrying(*args, **kwargs):
        delay, deadline = 0.05, time.monotonic() + RETRY_SECONDS
        while True:
            try:
                return call(*args, **kwargs)
            except Exception as error:
                if not _is_transient(error):
                    raise
                if time.monotonic() > deadline:
                    raise TrackingError(
                        f"the tracking store {uri} stayed busy for {RETRY_SECONDS:.0f} s ({first_line(error)}); "
                        "for many writers use an `mlflow server` backed by PostgreSQL"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 2.0)

    return retrying


class RetryingClient:
    """An MlflowClient whose every method retries transient store failures (see module docstring)."""

    def __init__(self, uri: str):
        self._client = _client(uri)
        self._uri = uri

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        return _with_retries(attribute, self._uri) if callable(attribute) else attribute


def get_or_create_experiment(client, name: str, uri: str, artifact_location: str | None = None, log=None) -> str:
    """The id of experiment `name`, created if needed; safe when many processes do it at once.

    A new experiment keeps its runs' files at `artifact_location` (default: `artifact_root(uri)`).
    An existing one keeps the location it was created with; `log` (when given) is told so when
    that differs from `artifact_location`."""
    from mlflow.exceptions import MlflowException

    for _ in range(10):
        experiment = client.get_experiment_by_name(name)
        if experiment is not None:
            if experiment.lifecycle_stage == "deleted":
                raise TrackingError(
                    f"experiment {name!r} is deleted in {uri}; restore it (`mlflow experiments restore`) "
                    "or choose another experiment name"
                )
            kept = experiment.artifact_location
            if log is not None and artifact_location and kept.rstrip("/") != artifact_location.rstrip("/"):
                log(f"MLflow experiment {name!r} keeps the artifact location it was created with: {kept}")
            return experiment.experiment_id
        try:
            return client.create_experiment(name, artifact_location=artifact_location or artifact_root(uri))
        except MlflowException:  # another process created it first: read it back
            time.sleep(0.1)
    raise TrackingError(f"could not get or create experiment {name!r} in {uri}")


def _quoted(text: str, quotes: str) -> str | None:
    """`text` inside the first of `quotes` it does not contain; None when it holds them all.

    MLflow's filter grammar has no escape character, so a value is quoted with a quote it does not
    contain; it can then never end its string early and change the query."""
    for quote in quotes:
        if quote not in text:
            return f"{quote}{text}{quote}"
    return None


def tag_query(tags: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """MLflow filter clauses matching `tags` exactly, and the tags no quoting can express (a key
    holding both ` and ", a value holding both ' and "), which the caller must match itself."""
    clauses, leftover = [], {}
    for key, value in tags.items():
        name, literal = _quoted(key, '`"'), _quoted(value, "'\"")
        if name is None or literal is None:
            leftover[key] = value
        else:
            clauses.append(f"tags.{name} = {literal}")
    return clauses, leftover


def search_tagged(
    client,
    experiment_ids: list[str],
    tags: dict[str, str],
    *,
    status: str | None = "FINISHED",
    extra: tuple[str, ...] = (),
    order_by: tuple[str, ...] = ("attributes.start_time DESC",),
    max_results: int = 1000,
) -> list:
    """Runs of the experiments carrying all `tags` (exactly: any character in a key or value is
    safe), in `status` (None: any), matching the `extra` clauses (written by the caller, never
    holding user text)."""
    clauses, leftover = tag_query(tags)
    if status is not None:
        clauses.append(f"attributes.status = '{status}'")
    runs = client.search_runs(
        experiment_ids,
        " and ".join([*clauses, *extra]),
        order_by=list(order_by),
        max_results=max_results if not leftover else 50000,
    )
    if leftover:
        runs = [r for r in runs if all(r.data.tags.get(k) == v for k, v in leftover.items())][:max_results]
    return runs


def tagged_runs(
    client, experiment_name: str, tags: dict[str, str], max_results: int = 1000, status: str | None = "FINISHED"
) -> list:
    """Runs of an experiment carrying all `tags` in `status` (FINISHED unless told; None: any),
    newest first. [] if the experiment does not exist."""
    experiment = client.get_experiment_by_name(experiment_name)
    if experiment is None:
        return []
    return search_tagged(client, [experiment.experiment_id], tags, status=status, max_results=max_results)


def close_orphan(uri: str, run_id: str, reason: str) -> bool:
    """Mark a run that is still RUNNING but whose process is gone as KILLED; True if it was."""
    from mlflow.exceptions import MlflowException

    client = RetryingClient(uri)
    try:
        run = client.get_run(run_id)
    except MlflowException:
        return False
    if run.info.status != "RUNNING":
        return False
    client.set_tag(run_id, FAILURE_TAG, reason)
    client.set_terminated(run_id, "KILLED")
    return True


@contextlib.contextmanager
def tracked_run(
    uri: str,
    experiment: str,
    run_name: str,
    *,
    params: dict[str, Any] | None = None,
    tags: dict[str, str] | None = None,
    parent_run_id: str | None = None,
    killed_by: tuple[type[BaseException], ...] = (),
    artifact_location: str | None = None,
    log=None,
) -> Iterator[str]:
    """A run made active for `mlflow.log_*` calls inside the block; yields its id.

    Ends FINISHED when the block completes, KILLED on Ctrl-C or an exception of `killed_by` (a
    sweep's pruned trial), FAILED (with the error as a tag, passwords masked) on any other
    exception. With `parent_run_id` the run is nested under that one (sweep trials).
    `artifact_location` and `log` go to `get_or_create_experiment`."""
    import mlflow

    client = RetryingClient(uri)
    experiment_id = get_or_create_experiment(client, experiment, uri, artifact_location, log)
    all_tags = dict(tags or {})
    if parent_run_id is not None:
        all_tags["mlflow.parentRunId"] = parent_run_id
    all_tags["mlflow.runName"] = run_name
    run = client.create_run(experiment_id, tags=all_tags)
    run_id = run.info.run_id
    if params:
        from mlflow.entities import Param

        items = [Param(str(k), str(v)[:6000]) for k, v in params.items()]
        for start in range(0, len(items), 100):
            client.log_batch(run_id, params=items[start : start + 100])
    mlflow.set_tracking_uri(uri)
    status, reason = "FINISHED", None
    try:
        with mlflow.start_run(run_id=run_id, nested=parent_run_id is not None):
            yield run_id
    except KeyboardInterrupt:
        status, reason = "KILLED", "interrupted"
        raise
    except killed_by as error:
        status, reason = "KILLED", str(error) or type(error).__name__
        raise
    except BaseException as error:
        status, reason = "FAILED", first_line(error)
        raise
    finally:
        if reason:
            client.set_tag(run_id, FAILURE_TAG, redact(reason)[:5000])
        client.set_terminated(run_id, status)


def flatten(tree: dict, prefix: str = "") -> dict[str, Any]:
    """{"optim": {"lr": 1e-5}} -> {"optim.lr": 1e-5}."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
