"""Who runs a sandboxed program: which Python, and, when we are root, which fresh uid.

As root each run gets an unprivileged uid of its own, drawn from 200000..1199999, so that the
uid's process limit, what it may signal and the kill by uid after the run reach that run only.
A uid is drawn only while nothing holds it: no live process runs as it, no other run of this
process has it, and the kernel keeps no keys for it (/proc/key-users). Keys belong to a uid,
not to a process: they would outlive the run and hand what it stored to a later run drawing
the same uid. The boot's seccomp filter refuses the keyring system calls, so this only guards
against keys that came some other way (an older sandbox, another program using that uid).

The uid needs a Python that other users may run: every directory on the way to it (through
each symlink of a virtualenv's `bin/python`) searchable, the file itself readable and
executable by others. A virtualenv inside a 0700 checkout or home is not, even when its
`python` links to /usr/bin; its programs then run with the Python it links to, or
/usr/bin/python3 (standard library only, which is all the graded solutions may assume).
"""

import contextlib
import functools
import os
import random
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

UID_BASE, UID_COUNT = 200_000, 1_000_000
_in_use: set[int] = set()
_in_use_lock = threading.Lock()


def reachable_by_others(path: str) -> bool:
    """Whether any user may run this file: every directory on the way to it, through each
    symlink, searchable by others, and the file readable and executable by them."""
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel's own bound on symlinks followed
        try:
            if not all(os.stat(d).st_mode & stat.S_IXOTH for d in Path(current).parents):
                return False
            if not os.path.islink(current):
                mode = os.stat(current).st_mode
                return bool(mode & stat.S_IXOTH and mode & stat.S_IROTH)
            current = os.path.join(os.path.dirname(current), os.readlink(current))
        except OSError:
            return False
    return False


@functools.lru_cache(maxsize=1)
def interpreter_for_unprivileged_uid() -> str | None:
    candidates = [sys.executable, os.path.realpath(sys.executable), "/usr/bin/python3", "/usr/local/bin/python3"]
    return next((c for c in candidates if reachable_by_others(c)), None)


def interpreter_dirs(interpreter: str) -> list[str]:
    """The installs the program's interpreter needs (a venv and the Python it points to)."""
    dirs = {os.path.dirname(os.path.dirname(p)) for p in (interpreter, os.path.realpath(interpreter))}
    return sorted(d for d in dirs if d != "/")


def processes_of(uid: int) -> bool:
    """Whether a live (non-zombie) process runs as `uid` (its real uid); reads /proc. Only the
    head of each status file, in bytes: this runs before and after every sandboxed program."""
    wanted = b"\nUid:\t%d\t" % uid
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/status", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:  # gone meanwhile
            continue
        try:
            head = os.read(fd, 1024)  # Name, Umask, State, ..., Uid: the first few hundred bytes
        except OSError:
            continue
        finally:
            os.close(fd)
        if wanted in head and b"\nState:\tZ" not in head:
            return True
    return False


def uids_holding_keys(key_users: str = "/proc/key-users") -> set[int]:
    """The uids the kernel keeps keys for; lines read like `200777:     3 3/3 3/200 64/20000`."""
    try:
        text = Path(key_users).read_text()
    except OSError:  # a kernel without keys: then nobody holds any
        return set()
    return {int(uid) for line in text.splitlines() if (uid := line.split(":", 1)[0].strip()).isdigit()}


def draw_uid(
    randrange: Callable[[int], int] = random.randrange,
    key_users: str = "/proc/key-users",
    attempts: int = 1000,
) -> int:
    """A uid no process, no other run of ours and no key holds, marked in use until
    `release_uid`. Raises RuntimeError if `attempts` draws found none (a machine whose million
    uids are all taken)."""
    holding_keys = uids_holding_keys(key_users)
    for _ in range(attempts):
        uid = UID_BASE + randrange(UID_COUNT)
        if uid in holding_keys or processes_of(uid):
            continue
        with _in_use_lock:
            if uid not in _in_use:
                _in_use.add(uid)
                return uid
    raise RuntimeError(f"no free uid in {UID_BASE}..{UID_BASE + UID_COUNT - 1} after {attempts} draws")


def release_uid(uid: int) -> None:
    with _in_use_lock:
        _in_use.discard(uid)


@contextlib.contextmanager
def identity() -> Iterator[tuple[str, int | None]]:
    """(python to run, uid to run it as) for one run: a fresh uid when we are root and some
    Python is executable by other users, else our own (None) and our own Python."""
    interpreter = interpreter_for_unprivileged_uid() if os.geteuid() == 0 else None
    if interpreter is None:
        yield sys.executable, None
        return
    uid = draw_uid()
    try:
        yield interpreter, uid
    finally:
        release_uid(uid)
