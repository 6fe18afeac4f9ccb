"""Run untrusted Python (model-written code and its tests) in a confined, killable process.

    result = run_python("print(input()[::-1])", stdin="abc\\n", limits=SandboxLimits(timeout_s=5))
    result.passed, result.stdout  # True, "cba\\n"

Each run gets a temporary directory and a fresh session; `benchmarks/sandbox_boot.py` confines
the child before it execs ``python -I -B program.py``: limits on CPU seconds, address space,
file size, process count and open files; Landlock (write only inside its work directory, no
TCP, no signals outside the sandbox); as root also its own network namespace (no network), PID
namespace (killing it kills every descendant) and mount namespace with a size-limited tmpfs
as the work directory, and an unprivileged uid (so the process limit binds); that uid needs a
Python that other users may execute, so a virtualenv whose interpreter lives under /root runs
its sandboxed programs with /usr/bin/python3 (standard library only, which is all HumanEval
and LiveCodeBench solutions may assume). At the wall-clock
timeout the whole process group is SIGKILLed. `SandboxResult.isolation` lists what was applied.

Without root only the limits, Landlock and the process-group kill apply.
"""

import contextlib
import functools
import json
import math
import os
import random
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


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 10.0
    """Wall-clock seconds before the process group is killed."""
    memory_mb: int = 1024
    """Address-space limit (RLIMIT_AS)."""
    file_size_mb: int = 16
    """Largest file the program may write, stdout and stderr included (RLIMIT_FSIZE)."""
    disk_mb: int = 64
    """Size of the private tmpfs work directory (root only)."""
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


def _wait_until_gone(uid: int, timeout_s: float = 5.0) -> None:
    """The kernel tears a dead PID namespace down asynchronously: wait for its last process."""
    deadline = time.monotonic() + timeout_s
    while _processes_of(uid) and time.monotonic() < deadline:
        time.sleep(0.01)


def _read_capped(path: Path) -> str:
    with open(path, "rb") as stream:
        return stream.read(_OUTPUT_CAP_BYTES).decode("utf-8", errors="replace")


def run_python(source: str, *, stdin: str = "", limits: SandboxLimits = SandboxLimits()) -> SandboxResult:
    """Run `source` as a Python program under `limits`; never raises for the program's faults."""
    with tempfile.TemporaryDirectory(prefix="sandbox-") as tmp:
        root = Path(tmp)
        root.chmod(0o711)  # the sandbox uid may traverse to its work directory, not list it
        (root / "work").mkdir()
        (root / "program.py").write_text(source, encoding="utf-8")
        (root / "stdin").write_text(stdin, encoding="utf-8")
        interpreter, uid = _identity()
        config = {
            "interpreter": interpreter,
            "workdir": str(root / "work"),
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
            try:
                returncode, timed_out = process.wait(timeout=limits.timeout_s), False
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                returncode, timed_out = None, True
        if uid is not None:
            _wait_until_gone(uid)
        duration = time.monotonic() - started
        report = root / "isolation.json"
        isolation = json.loads(report.read_text()) if report.exists() and report.stat().st_size else []
        return SandboxResult(
            returncode=returncode,
            stdout=_read_capped(root / "stdout"),
            stderr=_read_capped(root / "stderr"),
            timed_out=timed_out,
            duration_s=duration,
            isolation=isolation,
        )
