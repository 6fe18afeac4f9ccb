"""The code sandbox against hostile programs: each fails its run and harms nothing.

Run as root (CI does) these cover the full confinement; as another user the root-only
assertions are skipped and the rest checks what the docstring of benchmarks.sandbox.confined_run promises
for that case.
"""

import json
import os
import platform
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from benchmarks.sandbox.confined_run import SandboxLimits, run_python

QUICK = SandboxLimits(timeout_s=2.0, memory_mb=256)
AS_ROOT = os.geteuid() == 0
# Programs that only end by the kill: the timeout just has to let them start what they try (the
# sandbox starts a program in about 0.2 s), and each second of it is a second of the suite.
KILLED = SandboxLimits(timeout_s=1.0, memory_mb=256)
# The call may take its timeout plus the clean-up after the kill, never much more.
BUDGET_S = KILLED.timeout_s + 1.5
# Tests that assert on what the program prints, not on time: room for a slow sandbox start on a busy
# machine (2 s ran out once before the allocation loop reached its limit).
ROOMY = SandboxLimits(timeout_s=10.0, memory_mb=QUICK.memory_mb)


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


def _processes_with(token: str) -> list[str]:
    """Host pids whose command line contains `token` (independent of uids and namespaces)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if token.encode() in cmdline.read_bytes():
                found.append(cmdline.parent.name)
        except OSError:
            continue
    return found


def test_well_behaved_program_runs():
    result = run_python("import sys\nprint(sys.stdin.read()[::-1], end='')", stdin="abc", limits=QUICK)
    assert result.passed and result.stdout == "cba"


def test_isolation_applied_as_root():
    result = run_python("pass", limits=QUICK)
    assert "rlimits" in result.isolation and {"seccomp_no_sockets", "seccomp_no_keyrings"} <= set(result.isolation)
    assert any(item.startswith(("tree_memory_", "no_tree_memory_bound")) for item in result.isolation)
    assert any(item.startswith("landlock_abi_") for item in result.isolation)
    if AS_ROOT:
        expected = {"net_namespace", "pid_namespace", "ipc_namespace", "private_root", "private_proc", "tmpfs_workdir"}
        assert expected <= set(result.isolation)
        assert _uid_of(result) is not None


def test_infinite_loop_is_killed():
    result = run_python("while True:\n    pass", limits=KILLED)
    assert not result.passed and result.duration_s < BUDGET_S


def test_sleeping_forever_is_killed():
    result = run_python("import time\ntime.sleep(60)", limits=KILLED)
    assert result.timed_out and result.returncode is None and result.duration_s < BUDGET_S


def test_ignoring_sigterm_does_not_help():
    program = (
        "import signal, time\nfor s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
        "    signal.signal(s, signal.SIG_IGN)\ntime.sleep(60)"
    )
    result = run_python(program, limits=KILLED)
    assert result.timed_out and result.duration_s < BUDGET_S


def test_fork_bomb_is_contained():
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    result = run_python(bomb, limits=KILLED)
    assert not result.passed and result.duration_s < BUDGET_S
    if (uid := _uid_of(result)) is not None:
        assert _processes_of(uid) == []


def _linger(token: str) -> str:
    """A statement that turns the current process into a long sleep named by `token`."""
    return f"os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(60)', {token!r}])"


ESCAPES = {
    # the review's case: the program itself leaves the process group the sandbox kills
    "setsid": "os.setsid()\n{linger}",
    "setpgid": "os.setpgid(0, 0)\n{linger}",
    "setsid_ignoring_signals": "os.setsid()\nfor s in range(1, 32):\n    try:\n"
    "        signal.signal(s, signal.SIG_IGN)\n    except (OSError, ValueError):\n        pass\n{linger}",
    "child_setsid": "if os.fork() == 0:\n    os.setsid()\n    {linger}\ntime.sleep(60)",
    # the program returns at once, leaving a daemon behind (double fork, new session, fds closed)
    "daemon": "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.closerange(0, 1024)\n"
    "        {linger}\n    os._exit(0)",
    "child_ignoring_sighup": "if os.fork() == 0:\n    signal.signal(signal.SIGHUP, signal.SIG_IGN)\n    {linger}",
    "setsid_fork_bomb": "os.setsid()\nfor _ in range(20):\n    if os.fork() == 0:\n        os.setsid()\n"
    "        if os.fork() == 0:\n            {linger}\ntime.sleep(60)",
}


@pytest.mark.parametrize("escape", ESCAPES.values(), ids=ESCAPES.keys())
def test_nothing_outlives_the_call(escape):
    token = f"sandbox-linger-{uuid.uuid4().hex}"
    program = "import os, signal, sys, time\n" + escape.format(linger=_linger(token))
    result = run_python(program, limits=KILLED)
    survivors = _processes_with(token)
    for pid in survivors:  # do not leave them running for the rest of the suite
        os.kill(int(pid), 9)
    assert survivors == []
    assert result.duration_s < BUDGET_S
    if (uid := _uid_of(result)) is not None:
        assert _processes_of(uid) == []


@pytest.mark.skipif(not AS_ROOT, reason="PID namespace needs root or user namespaces")
def test_program_runs_in_its_own_pid_namespace():
    program = "import os\nprint(os.getpid(), sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"
    result = run_python(program, limits=QUICK)
    pid, visible = result.stdout.split(" ", 1)
    # pid 1 is the sandbox's own init, the program is its only child
    assert result.passed and pid == "2" and visible.strip() == "[1, 2]"


def test_cannot_read_host_command_lines():
    program = (
        "import os\nfor p in os.listdir('/proc'):\n    if p.isdigit():\n        try:\n"
        "            print(open(f'/proc/{p}/cmdline').read())\n        except OSError:\n            pass"
    )
    result = run_python(program, limits=QUICK)
    assert result.passed and "pytest" not in result.stdout
    direct = run_python(f"print(open('/proc/{os.getpid()}/cmdline').read())", limits=QUICK)
    assert "pytest" not in direct.stdout


@pytest.mark.skipif(not AS_ROOT, reason="the private root view needs root or user namespaces")
@pytest.mark.parametrize("folder", ["/tmp", "/var/tmp", "/dev/shm", str(Path(__file__).parent)])
def test_cannot_read_world_readable_host_files(folder):
    secret = Path(folder) / f"sandbox-secret-{uuid.uuid4().hex}"
    secret.write_text("secret")
    secret.chmod(0o644)
    try:
        result = run_python(f"print(open({str(secret)!r}).read())", limits=QUICK)
    finally:
        secret.unlink()
    assert not result.passed and "secret" not in result.stdout and "FileNotFoundError" in result.stderr


def test_unbounded_allocation_fails():
    result = run_python("chunks = []\nwhile True:\n    chunks.append(bytearray(10**7))", limits=ROOMY)
    assert not result.passed and "MemoryError" in result.stderr


def test_ten_gigabyte_allocation_fails():
    result = run_python("x = bytearray(10 * 2**30)", limits=ROOMY)
    assert not result.passed and "MemoryError" in result.stderr


def test_raising_limits_fails():
    program = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)"
    result = run_python(program, limits=QUICK)
    assert not result.passed and "not allowed to raise maximum limit" in result.stderr


def test_huge_output_is_cut():
    result = run_python("import sys\nwhile True:\n    sys.stdout.write('x' * 2**20)", limits=KILLED)
    assert not result.passed and len(result.stdout) <= 2**20 and result.duration_s < BUDGET_S


def test_writing_outside_its_directory_fails():
    target = Path("/tmp") / f"sandbox-escape-{uuid.uuid4().hex}"
    result = run_python(f"open({str(target)!r}, 'w').write('pwned')", limits=QUICK)
    assert not result.passed and "Error" in result.stderr
    assert not target.exists()


def test_writing_inside_its_directory_works():
    program = "import tempfile\nopen('notes.txt', 'w').write('ok')\nprint(open('notes.txt').read())\ntempfile.mkstemp()"
    result = run_python(program, limits=QUICK)
    assert result.passed and result.stdout == "ok\n"


def test_huge_file_is_refused():
    result = run_python("open('big', 'wb').write(b'x' * (64 << 20))", limits=SandboxLimits(timeout_s=5, file_size_mb=8))
    assert not result.passed


def _delivered(server: socket.socket) -> bytes | None:
    """What a connection queued on the listening `server` delivered (None: no connection). The
    kernel completes and buffers connections without accept(), so no thread is needed."""
    server.settimeout(0.2)
    try:
        connection, _ = server.accept()
    except TimeoutError:
        return None
    with connection:
        return connection.recv(100)


def test_opening_a_tcp_connection_fails():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        program = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'leak')"
        result = run_python(program, limits=QUICK)
        assert _delivered(server) is None
    assert not result.passed and "PermissionError" in result.stderr


def test_udp_datagram_does_not_arrive():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as server:
        server.bind(("127.0.0.1", 0))
        port = server.getsockname()[1]
        program = (
            f"import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'leak', ('127.0.0.1', {port}))"
        )
        result = run_python(program, limits=QUICK)
        server.settimeout(0.2)
        with pytest.raises(TimeoutError):
            server.recv(100)
    assert not result.passed


def test_dns_lookup_fails():
    result = run_python("import socket\nsocket.getaddrinfo('example.com', 443)", limits=QUICK)
    assert not result.passed and "gaierror" in result.stderr


@pytest.mark.parametrize("kind", ["pathname", "abstract"])
def test_host_unix_socket_is_unreachable(kind):
    # a world-connectable socket file in /tmp, or a name in the abstract namespace
    name = f"sandbox-socket-{uuid.uuid4().hex}"
    address = f"/tmp/{name}" if kind == "pathname" else f"\0{name}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(address)
        if kind == "pathname":
            os.chmod(address, 0o777)
        server.listen()
        program = f"import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({address!r})\ns.sendall(b'leak')"
        try:
            result = run_python(program, limits=QUICK)
            assert _delivered(server) is None
        finally:
            if kind == "pathname":
                os.unlink(address)
    assert not result.passed and "PermissionError" in result.stderr


def test_socketpair_works():
    program = "import socket\na, b = socket.socketpair()\na.sendall(b'ok')\nprint(b.recv(2).decode())"
    result = run_python(program, limits=QUICK)
    assert result.passed and result.stdout == "ok\n"


SOCKET_SYSCALL = {"x86_64": 41, "aarch64": 198}.get(platform.machine())


@pytest.mark.skipif(SOCKET_SYSCALL is None, reason="socket's system call number unknown here")
def test_raw_socket_syscall_through_ctypes_fails():
    program = (
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        f"assert libc.syscall({SOCKET_SYSCALL}, 1, 1, 0) == -1\nprint(ctypes.get_errno())"
    )
    result = run_python(program, limits=QUICK)
    assert result.passed and result.stdout == "13\n"  # EACCES


@pytest.mark.skipif(platform.machine() != "x86_64", reason="i386 system calls exist on x86_64 only")
def test_i386_system_call_through_machine_code_fails():
    # socket(AF_UNIX, SOCK_STREAM, 0) through `int 0x80` (i386 syscall 359), which a filter
    # that only knows the x86_64 numbers would let through
    code = "53 b867010000 bb01000000 b901000000 31d2 cd80 5b c3"  # push rbx; mov eax/ebx/ecx; int 0x80; pop rbx; ret
    program = (
        "import ctypes, mmap\n"
        "page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
        f"page.write(bytes.fromhex({code!r}))\n"
        "print(ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))())"
    )
    result = run_python(program, limits=QUICK)
    assert result.passed and int(result.stdout) < 0


@pytest.mark.parametrize("signal_target", ["1", "os.getppid()"])
def test_cannot_signal_outside(signal_target):
    result = run_python(f"import os, signal\nos.kill({signal_target}, signal.SIGKILL)\nprint('alive')", limits=QUICK)
    assert os.getpid() > 0  # the test process survives
    assert result.returncode is not None


# Weaker set-ups, made from here: (argv prefix, subprocess options, owner of the home). Each runs
# `_ELSEWHERE` with the Python of a virtualenv in a 0700 home ({home}) that also holds a copy of the
# sandbox, as a user would have it: so the set-up never depends on where this checkout lives or on
# its permissions (a clone in a `mktemp -d` folder is 0700 too).
SETUPS = {
    "unprivileged_user": (["{home}/venv/bin/python"], {"user": 65534, "group": 65534, "extra_groups": []}, 65534),
    "root_without_cap_sys_admin": (["setpriv", "--bounding-set=-sys_admin", "{home}/venv/bin/python"], {}, 0),
}
_ELSEWHERE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from benchmarks.sandbox import confined_run as sandbox
quick = sandbox.SandboxLimits(timeout_s=1.0, memory_mb=256)
results = [sandbox.run_python(program, limits=quick) for program in sys.argv[2:]]
print(json.dumps([[r.timed_out, r.stderr, r.isolation] for r in results]))
"""
_BASE_PYTHON = "/usr/bin/python3"  # a Python any user may run, standing in for the user's


def _private_home(owner: int) -> Path:
    """A 0700 home of `owner` holding checkout/benchmarks/sandbox/ (no other benchmark) and a
    virtualenv whose python links to a Python anyone may run."""
    home = Path(tempfile.mkdtemp(prefix="sandbox-home-"))
    package = home / "checkout" / "benchmarks"
    (package / "sandbox").mkdir(parents=True)
    (package / "__init__.py").touch()
    for module in Path(__file__).parents[3].joinpath("benchmarks", "sandbox").glob("*.py"):
        shutil.copyfile(module, package / "sandbox" / module.name)
    (home / "venv" / "bin").mkdir(parents=True)
    (home / "venv" / "bin" / "python").symlink_to(_BASE_PYTHON)
    (home / "venv" / "pyvenv.cfg").write_text(f"home = {Path(_BASE_PYTHON).parent}\n")
    for path in [home, *home.rglob("*")]:
        os.chown(path, owner, owner, follow_symlinks=False)
    return home


@pytest.mark.skipif(not AS_ROOT, reason="needs root to make the weaker set-ups")
@pytest.mark.parametrize("setup", SETUPS.values(), ids=SETUPS.keys())
def test_weaker_setups_still_kill_everything_and_refuse_sockets(setup):
    """Without root (in a user namespace) or as root without namespaces (uid kill), each from a
    virtualenv in a 0700 home: as root the sandbox uid cannot reach that venv's python, so the
    programs must run with the Python it links to."""
    argv, options, owner = setup
    for tool in [_BASE_PYTHON] + [a for a in argv[:1] if "{home}" not in a]:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    home = _private_home(owner)
    try:
        _run_weaker_setup(home, [a.format(home=home) for a in argv], options)
    finally:
        shutil.rmtree(home)


def _run_weaker_setup(home: Path, argv: list[str], options: dict) -> None:
    tokens = [f"sandbox-linger-{uuid.uuid4().hex}" for _ in range(2)]
    escapes = [ESCAPES["setsid"], ESCAPES["daemon"]]
    programs = ["import os, signal, sys, time\n" + e.format(linger=_linger(t)) for e, t in zip(escapes, tokens)]
    programs.append("import socket\nsocket.socket(socket.AF_UNIX)")
    run = subprocess.run(
        [*argv, "-I", "-c", _ELSEWHERE, str(home / "checkout"), *programs],
        cwd="/",
        capture_output=True,
        text=True,
        timeout=60,
        **options,
    )
    survivors = [pid for token in tokens for pid in _processes_with(token)]
    for pid in survivors:
        os.kill(int(pid), 9)
    assert run.returncode == 0, run.stderr
    (setsid_timed_out, setsid_error, isolation), _, (_, socket_error, _) = json.loads(run.stdout)
    assert setsid_timed_out and "PermissionError" in socket_error, setsid_error
    if "no_namespaces" in " ".join(isolation) and "uid_" not in " ".join(isolation):
        pytest.skip(f"no user namespaces for ordinary users here, so a setsid can escape: {isolation}")
    assert survivors == []
