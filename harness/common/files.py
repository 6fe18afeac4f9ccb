"""File helpers the whole project shares: strict JSONL reading and writes that never leave half a file.

    rows = read_jsonl(path, required=("id", "problem", "answer"))   # DataError names file and line
    with atomic_file(path) as sink: sink.write(...)                 # renamed into place on success
    atomic_write_text(path, text)
    json.dumps(finite_or_null(summary))                             # valid JSON: NaN / inf written as null
    with atomic_directory(folder) as tmp: model.save_pretrained(tmp)
    remove_stale_temporaries(folder)                                # what killed writers left behind
    ensure_writable_folder(Path("runs/x"), "--output-dir")           # one-line ConfigError before any work
    with naming(path): sink.write(...)                              # a full disk's ENOSPC names `path`
    lock = hold_lock(folder / ".lock", "{folder} is in use by pid {pid}")   # one owner at a time
    cache_root() / "models"                                         # $HARNESS_CACHE, ~/.cache/ce-gppo-harness

Atomic writes go to a temporary sibling named ``.<name>.<pid>.<random>.tmp`` and are renamed over
the target only when the write finished (rename is atomic on one filesystem), so a reader sees the
old version or the new one, never a truncated one, and a failed write leaves the old one intact.
A process killed with SIGKILL cannot clean up; its temporaries carry its PID, so the next writer
removes those whose process is gone (`remove_stale_temporaries`) without touching a live one's.

Lives in `harness.common`, the base layer that `benchmarks`, `harness` and `sweeps` all import.
"""

from __future__ import annotations

import contextlib
import decimal
import errno
import fcntl
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from harness.common.errors import ConfigError, DataError

CACHE_ENV = "HARNESS_CACHE"


def cache_root() -> Path:
    """The project's cache folder (built-in models, warm starts, the grader audit): $HARNESS_CACHE,
    else ~/.cache/ce-gppo-harness. Everything in it can be rebuilt."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "ce-gppo-harness")


_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[^.]+\.tmp$")


def read_jsonl(path: str | Path, *, required: tuple[str, ...] = (), what: str = "file") -> list[dict]:
    """Every non-blank line of `path` as a JSON object, each with the `required` fields.

    Raises DataError (one line: the file, the line number, the problem) for a missing or empty
    file, bytes that are not UTF-8, a line that is not JSON (NaN and Infinity included), text
    that is not valid Unicode (an escaped lone surrogate), a row that is not an object, or a
    missing required field; `what` names the file's role in the message ("task.path", ...).
    An integer too long for Python's int() (over 4000 digits) is kept as its exact digit text; a
    number a float cannot hold (1e999, 1e-400) is a DataError, never inf or 0.0."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{what} {path}: no such file")
    rows = []
    with open(path, "rb") as lines:
        for number, raw in enumerate(lines, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise DataError(f"{what} {path}:{number}: not UTF-8 text (byte {error.start})") from None
            if not line.strip():
                continue
            try:
                row = json.loads(line, parse_int=_json_int, parse_float=_json_float, parse_constant=_no_constant)
            except json.JSONDecodeError as error:
                raise DataError(f"{what} {path}:{number}: not valid JSON ({error.msg})") from None
            except ValueError as error:  # NaN / Infinity, a number a float cannot hold (see the hooks)
                raise DataError(f"{what} {path}:{number}: {error}") from None
            except RecursionError:
                raise DataError(f"{what} {path}:{number}: JSON nested too deeply") from None
            if not isinstance(row, dict):
                raise DataError(f"{what} {path}:{number}: expected a JSON object, got {type(row).__name__}")
            surrogate = _unpaired_surrogate(row)
            if surrogate is not None:
                raise DataError(
                    f"{what} {path}:{number}: the text holds an unpaired surrogate ({surrogate}), which is not "
                    "valid Unicode"
                )
            missing = [name for name in required if name not in row]
            if missing:
                raise DataError(f"{what} {path}:{number}: missing field(s) {', '.join(missing)}")
            rows.append(row)
    if not rows:
        raise DataError(f"{what} {path}: the file holds no rows")
    return rows


_INT_DIGITS = 4000  # below Python's 4300-digit limit on int(str)


def _json_int(digits: str) -> int | str:
    """A JSON integer as an int; past Python's digit limit, as its exact digit text (int() would raise)."""
    return int(digits) if len(digits) <= _INT_DIGITS else digits


def _json_float(text: str) -> float:
    """A JSON number with a fraction or exponent as a float; one that a float cannot hold (it would
    read as inf, or a non-zero number as 0.0) is refused rather than silently changed."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:30]} is too large for a float")
    if value == 0.0 and decimal.Decimal(text) != 0:
        raise ValueError(f"the number {text[:30]} is too small for a float (it would read as 0)")
    return value


def _no_constant(name: str):
    """JSON has no NaN / Infinity; Python's json reads them unless told otherwise. No data needs them."""
    raise ValueError(f"{name} is not a JSON value")


def _unpaired_surrogate(value) -> str | None:
    """The first lone UTF-16 surrogate in the strings of a parsed row (written as \\ud800 in JSON, legal
    to escape but not text any tokenizer or file can hold), as an escape; None when there is none."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            return f"\\u{ord(value[error.start]):04x} at character {error.start}"
        return None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _unpaired_surrogate(key) if isinstance(key, str) else None
        found = found or _unpaired_surrogate(item)
        if found:
            return found
    return None


def finite_or_null(value):
    """`value` with every non-finite float (NaN, inf: a figure with no data) replaced by None, so that
    json.dumps writes valid JSON (null) instead of Python's NaN / Infinity extension."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_or_null(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(item) for item in value]
    return value


def null_as_nan(figures: dict) -> dict:
    """The reverse for a flat dict of figures read back (finite_or_null wrote NaN as null)."""
    return {key: float("nan") if value is None else value for key, value in figures.items()}


def _temporary_name(target: Path) -> str:
    return f".{target.name}.{os.getpid()}."


@contextlib.contextmanager
def atomic_file(path: str | Path, mode: str = "w", *, encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary sibling of `path` for writing; on a clean exit flush, fsync and rename it
    over `path`; on an exception delete it and leave `path` as it was."""
    target = Path(path)
    if target.is_dir():  # refuse before writing anything, naming the target (not the temporary)
        raise IsADirectoryError(errno.EISDIR, "a folder is where this file goes", str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=_temporary_name(target), suffix=".tmp")
    try:
        with os.fdopen(handle, mode, encoding=None if "b" in mode else encoding) as sink:
            yield sink
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    """Replace `path` with `text` in one step (see `atomic_file`)."""
    with atomic_file(path) as sink:
        sink.write(text)


@contextlib.contextmanager
def atomic_directory(path: str | Path, *, replace: bool = True) -> Iterator[Path]:
    """Yield an empty temporary sibling folder of `path`; on a clean exit rename it to `path`.

    With `replace` an existing `path` is swapped out (moved aside, then deleted); without it an
    existing `path` wins (another process finished the same work first) and the new folder is
    dropped. On an exception the temporary folder is deleted and `path` is untouched."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(dir=target.parent, prefix=_temporary_name(target), suffix=".tmp"))
    try:
        yield temporary
        if target.exists() and not replace:
            return
        if target.exists():
            aside = Path(tempfile.mkdtemp(dir=target.parent, prefix=_temporary_name(target), suffix=".tmp"))
            os.replace(target, aside / "old")
            os.replace(temporary, target)
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.replace(temporary, target)
    finally:
        if temporary.exists():
            shutil.rmtree(temporary, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


def remove_stale_temporaries(directory: str | Path) -> list[Path]:
    """Delete the temporaries (files or folders) in `directory` left by writers that died.

    Only names of the form this module writes count, and only those whose PID is no longer
    running; returns what was removed."""
    directory = Path(directory)
    removed = []
    if not directory.is_dir():
        return removed
    for entry in directory.iterdir():
        match = _TEMPORARY.match(entry.name)
        if match is None or _process_alive(int(match["pid"])):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry)
    return removed


def ensure_writable_folder(path: Path, what: str) -> None:
    """Create `path` if needed and prove a file can be written in it (then removed); one-line
    ConfigError naming `what` for a file in the way, a read-only place or a missing permission,
    so that the refusal comes before any work, not at the first checkpoint."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{what}={str(path)!r} is a file, not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise ConfigError(f"cannot write to {what}={str(path)!r}: {error.strerror or error}") from None


def ensure_file_places(paths: list[Path], what: str) -> None:
    """One-line ConfigError when a folder (or anything but a file) sits where a file will be written."""
    for path in paths:
        if os.path.lexists(path) and not path.is_file():
            raise ConfigError(f"{path} is not a file but {what} writes one there; move it away")


@contextlib.contextmanager
def naming(path: str | Path) -> Iterator[None]:
    """Name `path` (a file, folder or artifact URI) in an OSError that names no file: a full disk
    (ENOSPC) raises one from write, flush or fsync, and the CLI reports an error in one line only
    when it knows the path."""
    try:
        yield
    except OSError as error:
        if error.filename is not None:
            raise
        raise OSError(error.errno, error.strerror or str(error), str(path)) from error


def hold_lock(lock_file: Path, busy: str, what: str) -> IO:
    """Take the exclusive flock of `lock_file` for this process (the kernel drops it when the process
    ends, however it ends) and write our pid into it; return the open handle, which holds the lock
    until it is closed. A lock another live process holds is a one-line ConfigError: `busy` with
    `{pid}` replaced by the holder's pid. A lock file that cannot be written names `what`."""
    try:
        handle = open(lock_file, "a+")
    except OSError as error:
        raise ConfigError(f"cannot write to {what}: {error.strerror or error}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        owner = handle.read().strip() or "unknown"
        handle.close()
        raise ConfigError(busy.format(pid=owner)) from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle
