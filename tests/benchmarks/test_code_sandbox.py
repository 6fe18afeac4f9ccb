"""The code sandbox against hostile programs: each fails its run and harms nothing."""

import os
import socket
import threading
import uuid
from pathlib import Path

import pytest

from benchmarks.sandbox import SandboxLimits, run_python

QUICK = SandboxLimits(timeout_s=2.0, memory_mb=256)


def _uid_of(result) -> int | None:
    return next((int(item[4:]) for item in result.isolation if item.startswith("uid_")), None)


def _processes_of(uid: int) -> list[str]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        lines = text.splitlines()
        zombie = any(line.startswith("State:") and "Z" in line.split()[1] for line in lines)
        if not zombie and any(line.split()[1:2] == [str(uid)] for line in lines if line.startswith("Uid:")):
            found.append(status.parent.name)
    return found


def test_well_behaved_program_runs():
    result = run_python("import sys\nprint(sys.stdin.read()[::-1], end='')", stdin="abc", limits=QUICK)
    assert result.passed and result.stdout == "cba"


def test_isolation_applied_as_root():
    result = run_python("pass", limits=QUICK)
    assert "rlimits" in result.isolation
    assert any(item.startswith("landlock_abi_") for item in result.isolation)
    if os.geteuid() == 0:
        assert {"net_namespace", "pid_namespace", "tmpfs_workdir"} <= set(result.isolation)
        assert _uid_of(result) is not None


def test_infinite_loop_is_killed():
    result = run_python("while True:\n    pass", limits=QUICK)
    assert not result.passed and result.duration_s < QUICK.timeout_s + 2


def test_sleeping_forever_is_killed():
    result = run_python("import time\ntime.sleep(60)", limits=QUICK)
    assert result.timed_out and result.returncode is None and result.duration_s < QUICK.timeout_s + 2


def test_fork_bomb_is_contained():
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    result = run_python(bomb, limits=QUICK)
    assert not result.passed
    if (uid := _uid_of(result)) is not None:
        assert _processes_of(uid) == []


def test_escaped_session_dies_with_the_sandbox():
    escape = "import os, time\nif os.fork() == 0:\n    os.setsid()\ntime.sleep(60)"
    result = run_python(escape, limits=QUICK)
    assert result.timed_out
    if (uid := _uid_of(result)) is not None:
        assert _processes_of(uid) == []


def test_unbounded_allocation_fails():
    result = run_python("chunks = []\nwhile True:\n    chunks.append(bytearray(10**7))", limits=QUICK)
    assert not result.passed and "MemoryError" in result.stderr


def test_writing_outside_its_directory_fails():
    target = Path("/tmp") / f"sandbox-escape-{uuid.uuid4().hex}"
    result = run_python(f"open({str(target)!r}, 'w').write('pwned')", limits=QUICK)
    assert not result.passed and "Permission" in result.stderr
    assert not target.exists()


def test_writing_inside_its_directory_works():
    result = run_python("open('notes.txt', 'w').write('ok')\nprint(open('notes.txt').read())", limits=QUICK)
    assert result.passed and result.stdout == "ok\n"


def test_huge_file_is_refused():
    result = run_python("open('big', 'wb').write(b'x' * (64 << 20))", limits=SandboxLimits(timeout_s=5, file_size_mb=8))
    assert not result.passed


def test_opening_a_socket_fails():
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(5)
    port = server.getsockname()[1]
    accepted = []
    threading.Thread(target=lambda: accepted.append(_accept(server)), daemon=True).start()
    program = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'leak')"
    result = run_python(program, limits=QUICK)
    server.close()
    assert not result.passed and "Error" in result.stderr
    assert accepted in ([], [None])


def _accept(server):
    try:
        return server.accept()
    except OSError:
        return None


@pytest.mark.parametrize("signal_target", ["1", "os.getppid()"])
def test_cannot_signal_outside(signal_target):
    result = run_python(f"import os, signal\nos.kill({signal_target}, signal.SIGKILL)\nprint('alive')", limits=QUICK)
    assert os.getpid() > 0  # the test process survives
    assert result.returncode is not None
