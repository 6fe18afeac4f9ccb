"""Run untrusted Python (model-written code and its tests) in a confined, killable process.

    result = run_python("print(input()[::-1])", stdin="abc\\n", limits=SandboxLimits(timeout_s=5))
    result.passed, result.stdout  # True, "cba\\n"

Each run gets a temporary directory; `benchmarks/sandbox/boot.py` confines the program and
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
* It cannot signal or trace anything outside (a fresh uid per run, Landlock's scopes), and it
  leaves nothing behind for a later run: no kernel keys (add_key, request_key and keyctl are
  refused), and no uid is drawn while a process or a key still holds it
  (`benchmarks.sandbox.identity`).
* Each call ends within `timeout_s` plus a few milliseconds of clean-up (at worst about 2 s
  more: a grace period for the boot process, then a kill by uid). CPU seconds, address space
  per process, file size, process count (of the fresh uid) and open files are limited.
* The whole process tree is bounded too (`benchmarks.sandbox.cgroup`): where a cgroup can be
  made (v2, or v1 on hybrid hosts), its memory to `memory_mb` and its processes to
  `processes`; elsewhere the process count drops to at most 4, so the tree holds at most
  4 x `memory_mb`. `isolation` names the bound (`tree_memory_cgroup_v2`, `_v1`, or
  `tree_memory_process_cap_N`).

It does not guarantee: secrecy of world-readable files under /etc and /usr; anything against a
kernel exploit or side channels. There is no /dev/shm, so multiprocessing locks and queues
fail. The uid needs a Python that other users may execute, so a virtualenv whose interpreter
lives under /root or in a 0700 checkout runs its sandboxed programs with the Python it links
to or /usr/bin/python3 (standard library only, which is all HumanEval and LiveCodeBench
solutions may assume). Neither the checkout nor the boot script need be readable by anyone
but the caller: the boot receives its script and config as open files, so the program's
/proc/1/cmdline names only the host's interpreter.

Weaker set-ups, each reported in `isolation`:

* Not root, with unprivileged user namespaces (most distributions): the same namespaces,
  private root and kill, made inside a user namespace; the program keeps the caller's uid
  (since Linux 5.14 the kernel counts its process limit inside that namespace only). The
  whole-tree bound is a cgroup only where systemd delegated one to the user, else the cap.
* Not root, without user namespaces: limits, Landlock, seccomp and a kill of the process group
  only. A program that leaves its group (setsid) can outlive the call, and it reads whatever
  the caller can read; the process limit counts the caller's own processes too. Network and
  sockets are still refused.
* Root without CAP_SYS_ADMIN (a default container): no namespaces; every process of the run's
  uid is killed after the call instead; reads are not restricted.
* Root with no Python that other users may execute: runs as root mapped to uid 1000 in a user
  namespace; all of the above holds except the process limit (root is exempt from it), so
  without a cgroup there is no whole-tree bound.
"""

import contextlib
import json
import math
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.sandbox.cgroup import TreeBound
from benchmarks.sandbox.identity import identity, interpreter_dirs, processes_of

_BOOT = str(Path(__file__).with_name("boot.py"))
_OUTPUT_CAP_BYTES = 1 << 20
_MB = 1 << 20
_BOOT_GRACE_S = 1.0


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 10.0
    """Wall-clock seconds before the run, and everything it started, is killed."""
    memory_mb: int = 1024
    """Address-space limit of each process (RLIMIT_AS) and, where a cgroup can be made, memory
    limit of the whole process tree (see `benchmarks.sandbox.cgroup`)."""
    file_size_mb: int = 16
    """Largest file the program may write, stdout and stderr included (RLIMIT_FSIZE)."""
    disk_mb: int = 64
    """Size of the private tmpfs work directory (where namespaces could be made)."""
    processes: int = 32
    """Processes and threads of the program's tree (a cgroup's pids.max, and RLIMIT_NPROC of the
    sandbox uid, which binds when started as root); at most 4 where no cgroup can be made."""
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


def _gone_within(uid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while processes_of(uid):
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


def _start_boot(root: Path, config: dict, tree: TreeBound) -> subprocess.Popen:
    """Start the boot in a new session with the program's stdin/stdout/stderr. Its script and
    config travel as open files (see sandbox_boot), and so do the cgroups' cgroup.procs."""
    fds = []
    try:
        fds.append(script := os.open(_BOOT, os.O_RDONLY | os.O_CLOEXEC))
        fds += (tree_fds := tree.open_procs())  # may fall back to the process cap: read `tree` after
        config |= {
            "script_fd": script,
            "processes": tree.processes,
            "tree": {
                "fds": tree_fds,
                "label": tree.label,
                "label_without_cgroup": tree.label_without_cgroup,
                "processes_without_cgroup": tree.processes_without_cgroup,
            },
        }
        read_config, write_config = os.pipe()
        fds.append(read_config)
        with open(write_config, "w") as stream:  # far below a pipe's buffer: no reader needed yet
            json.dump(config, stream)
        with (
            open(root / "stdin", "rb") as fin,
            open(root / "stdout", "wb") as fout,
            open(root / "stderr", "wb") as ferr,
        ):
            return subprocess.Popen(
                [sys.executable, "-I", "-S", f"/proc/self/fd/{script}", str(read_config)],
                stdin=fin,
                stdout=fout,
                stderr=ferr,
                cwd=root,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                start_new_session=True,
                pass_fds=fds,
            )
    finally:
        for fd in fds:
            os.close(fd)


def run_python(source: str, *, stdin: str = "", limits: SandboxLimits = SandboxLimits()) -> SandboxResult:
    """Run `source` as a Python program under `limits`; never raises for the program's faults."""
    with tempfile.TemporaryDirectory(prefix="sandbox-") as tmp, identity() as (interpreter, uid):
        root = Path(tmp)
        root.chmod(0o711)  # the sandbox uid may traverse to its work directory, not list it
        (root / "work").mkdir()
        (root / "view").mkdir()
        (root / "program.py").write_text(source, encoding="utf-8")
        (root / "stdin").write_text(stdin, encoding="utf-8")
        # as root mapped into a user namespace (uid None) RLIMIT_NPROC does not bind
        tree = TreeBound.make(limits.memory_mb, limits.processes, cap_binds=uid is not None or os.geteuid() != 0)
        config = {
            "interpreter": interpreter,
            "interpreter_dirs": interpreter_dirs(interpreter),
            "workdir": str(root / "work"),
            "view": str(root / "view"),
            "program": str(root / "program.py"),
            "report": str(root / "isolation.json"),
            "uid": uid,
            "cpu_s": limits.cpu_s,
            "memory_bytes": limits.memory_mb * _MB,
            "file_bytes": limits.file_size_mb * _MB,
            "disk_bytes": limits.disk_mb * _MB,
            "open_files": limits.open_files,
        }
        started = time.monotonic()
        try:
            process = _start_boot(root, config, tree)
        except BaseException:
            tree.close()
            raise
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
        oom_kills = tree.close()  # also kills what a run without PID namespace left in its cgroup
        stderr = _read_capped(root / "stderr")
        if oom_kills:
            stderr += (
                f"\nsandbox: the process tree reached its memory bound of {limits.memory_mb} MB;"
                f" the kernel killed {oom_kills} of its processes\n"
            )
        return SandboxResult(
            returncode=None if timed_out else returncode,
            stdout=_read_capped(root / "stdout"),
            stderr=stderr,
            timed_out=timed_out,
            duration_s=time.monotonic() - started,
            isolation=isolation,
        )
