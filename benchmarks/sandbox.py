"""Run untrusted Python (model-written code and its tests) in a confined, killable process.

    result = run_python("print(input()[::-1])", stdin="abc\\n", limits=SandboxLimits(timeout_s=5))
    result.passed, result.stdout  # True, "cba\\n"

Each run gets a temporary directory; `benchmarks/sandbox_boot.py` confines the program and
describes the mechanisms. `SandboxResult.isolation` lists what was applied. As root, on the
kernels we grade on (Landlock ABI 6+, Linux 6.12+), the sandbox guarantees:

* Nothing the program starts outlives the call, whatever it does with sessions, process
  groups, double forks or signal masks: it runs in its own PID namespace under an init of
  ours; when the program exits or its `timeout_s` runs out, init dies, the kernel kills every
  process of the namespace, and `run_python` returns only after the namespace is empty.
* No network and no host socket: a seccomp filter refuses socket(2) for every address
  family (pathname and abstract UNIX sockets included; socketpair(2) works), in empty
  network and IPC namespaces, and Landlock refuses TCP too.
* It writes only its own folder: a private tmpfs of `disk_mb` (also $HOME and $TMPDIR).
* It sees, read-only, only /usr, /bin, /sbin, /lib*, /etc, the interpreter's install, five
  devices (null, zero, full, random, urandom), a /proc that shows only its own processes and
  no host-wide files; not /tmp, /run, /dev/shm, /home, /root, /var, /sys, /work and so on.
* It cannot signal or trace anything outside (a fresh uid per run, Landlock's scopes).
* Each call ends within `timeout_s` plus a few milliseconds of clean-up (at worst about 2 s
  more: a grace period for the boot process, then a kill by uid). CPU seconds, address space
  per process, file size, process count (of the fresh uid) and open files are limited.

It does not guarantee: secrecy of world-readable files under /etc and /usr; a memory limit for
the whole tree (RLIMIT_AS is per process, so up to `processes` times `memory_mb`; no cgroup);
anything against a kernel exploit or side channels. There is no /dev/shm, so multiprocessing
locks and queues fail. The uid needs a Python that other users may execute, so a virtualenv
whose interpreter lives under /root runs its sandboxed programs with /usr/bin/python3
(standard library only, which is all HumanEval and LiveCodeBench solutions may assume).

Weaker set-ups, each reported in `isolation`:

* Not root, with unprivileged user namespaces (most distributions): the same namespaces,
  private root and kill, made inside a user namespace; the program keeps the caller's uid, so
  the process limit counts the caller's own processes too.
* Not root, without user namespaces: limits, Landlock, seccomp and a kill of the process group
  only. A program that leaves its group (setsid) can outlive the call, and it reads whatever
  the caller can read. Network and sockets are still refused.
* Root without CAP_SYS_ADMIN (a default container): no namespaces; every process of the run's
  uid is killed after the call instead; reads are not restricted.
* Root with no Python that other users may execute: runs as root mapped to uid 1000 in a user
  namespace; all of the above holds except the process limit (root is exempt from it).
"""

import contextlib
import functools
import json
import math
import os
import random
import select
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

_BOOT = str(Path(__file__).with_name("sandbox_boot.py"))
_OUTPUT_CAP_BYTES = 1 << 20
_MB = 1 << 20
_BOOT_GRACE_S = 1.0


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 10.0
    """Wall-clock seconds before the run, and everything it started, is killed."""
    memory_mb: int = 1024
    """Address-space limit (RLIMIT_AS)."""
    file_size_mb: int = 16
    """Largest file the program may write, stdout and stderr included (RLIMIT_FSIZE)."""
    disk_mb: int = 64
    """Size of the private tmpfs work directory (where namespaces could be made)."""
    processes: int = 32
    """Processes and threads of the sandbox uid (RLIMIT_NPROC; binds when started as root)."""
    open_files: int = 64

    @property
    def cpu_s(self) -> int:
        return math.ceil(self.timeout_s) + 1


@dataclass(frozen=True)
class SandboxResult:
    returncode: int | None
    """Exit status (128+N for signal N); None when killed at the timeout."""
    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float
    isolation: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def _world_executable(path: str) -> bool:
    """Whether any user may run this file: every directory above it searchable by others."""
    real = Path(os.path.realpath(path))
    modes = [p.stat().st_mode for p in [real, *real.parents]]
    return all(mode & stat.S_IXOTH for mode in modes) and bool(modes[0] & stat.S_IROTH)


@functools.lru_cache(maxsize=1)
def _interpreter_for_unprivileged_uid() -> str | None:
    candidates = [sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"]
    return next((c for c in candidates if os.path.exists(c) and _world_executable(c)), None)


def _identity() -> tuple[str, int | None]:
    """(python to run, uid to run it as): a fresh unprivileged uid per run when we are root
    and some Python is executable by other users (a venv under /root is not), else our own."""
    interpreter = _interpreter_for_unprivileged_uid() if os.geteuid() == 0 else None
    if interpreter is None:
        return sys.executable, None
    return interpreter, 200_000 + random.randrange(1_000_000)


def _interpreter_dirs(interpreter: str) -> list[str]:
    """The installs the program's interpreter needs (a venv and the Python it points to)."""
    dirs = {os.path.dirname(os.path.dirname(p)) for p in (interpreter, os.path.realpath(interpreter))}
    return sorted(d for d in dirs if d != "/")


def _processes_of(uid: int) -> bool:
    """Whether a live (non-zombie) process runs as `uid`; reads /proc."""
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if fields.get("Uid", "").split()[:1] == [str(uid)] and not fields.get("State", "").strip().startswith("Z"):
            return True
    return False


def _gone_within(uid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while _processes_of(uid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def _kill_everything_of(uid: int, interpreter: str) -> None:
    """SIGKILL every process of the run's uid: the second layer, for runs without a PID
    namespace or whose boot had to be killed. kill(-1) sent as that uid reaches all of them in
    one system call that a fork bomb cannot outrun (the kernel walks the process list under
    the lock that fork needs to add a process)."""
    if _gone_within(uid, 0.2):
        return
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            [interpreter, "-I", "-S", "-c", "import os; os.kill(-1, 9)"],
            user=uid,
            group=uid,
            extra_groups=[],
            env={},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=2,
        )
    _gone_within(uid, 1.0)


def _exited_within(process: subprocess.Popen, timeout_s: float) -> bool:
    """Wait up to `timeout_s` for `process` to exit, leaving it unreaped (so its pid, which
    names its process group, cannot be reused yet). A pidfd wakes us the moment it exits;
    Popen.wait(timeout) would poll with sleeps of up to 50 ms."""
    try:
        pidfd = os.pidfd_open(process.pid)
    except OSError:  # a kernel before 5.3
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout_s)
        return process.returncode is not None
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(max(timeout_s, 0) * 1000))
    finally:
        os.close(pidfd)


def _read_capped(path: Path) -> str:
    with open(path, "rb") as stream:
        return stream.read(_OUTPUT_CAP_BYTES).decode("utf-8", errors="replace")


def run_python(source: str, *, stdin: str = "", limits: SandboxLimits = SandboxLimits()) -> SandboxResult:
    """Run `source` as a Python program under `limits`; never raises for the program's faults."""
    with tempfile.TemporaryDirectory(prefix="sandbox-") as tmp:
        root = Path(tmp)
        root.chmod(0o711)  # the sandbox uid may traverse to its work directory, not list it
        (root / "work").mkdir()
        (root / "view").mkdir()
        (root / "program.py").write_text(source, encoding="utf-8")
        (root / "stdin").write_text(stdin, encoding="utf-8")
        interpreter, uid = _identity()
        config = {
            "interpreter": interpreter,
            "interpreter_dirs": _interpreter_dirs(interpreter),
            "workdir": str(root / "work"),
            "view": str(root / "view"),
            "program": str(root / "program.py"),
            "report": str(root / "isolation.json"),
            "uid": uid,
            "cpu_s": limits.cpu_s,
            "memory_bytes": limits.memory_mb * _MB,
            "file_bytes": limits.file_size_mb * _MB,
            "disk_bytes": limits.disk_mb * _MB,
            "processes": limits.processes,
            "open_files": limits.open_files,
        }
        started = time.monotonic()
        with (
            open(root / "stdin", "rb") as fin,
            open(root / "stdout", "wb") as fout,
            open(root / "stderr", "wb") as ferr,
        ):
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", _BOOT, json.dumps(config)],
                stdin=fin,
                stdout=fout,
                stderr=ferr,
                cwd=root,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                start_new_session=True,
            )
        timed_out = not _exited_within(process, limits.timeout_s)
        if timed_out:  # on SIGTERM the boot SIGKILLs init and exits once the namespace is empty
            process.terminate()
            _exited_within(process, _BOOT_GRACE_S)
        if process.returncode is None:  # still unreaped, so the group id is still the boot's
            # kills a boot that did not exit in time (and init with it), and without a PID
            # namespace whatever of the program stayed in the boot's process group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        returncode = process.wait()
        report = root / "isolation.json"
        isolation = json.loads(report.read_text()) if report.exists() and report.stat().st_size else []
        # A boot that exited by itself has reaped the namespace's init, which the kernel allows
        # only once every other process of the namespace is gone; in any other case the second
        # layer kills by uid.
        if uid is not None and (returncode < 0 or "pid_namespace" not in isolation):
            _kill_everything_of(uid, interpreter)
        duration = time.monotonic() - started
        return SandboxResult(
            returncode=None if timed_out else returncode,
            stdout=_read_capped(root / "stdout"),
            stderr=_read_capped(root / "stderr"),
            timed_out=timed_out,
            duration_s=duration,
            isolation=isolation,
        )
