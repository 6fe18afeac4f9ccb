"""Child side of `benchmarks.sandbox`: confine this process, then exec the untrusted program.

Run by the sandbox as ``python -I -S sandbox_boot.py '<json config>'`` inside a fresh session,
with stdin/stdout/stderr already redirected to files. Standard library only. Steps:

1. (root) new mount, network and PID namespaces: no network at all (only a loopback that is
   down), and a private tmpfs of `disk_bytes` mounted on the work directory;
2. fork: the child is PID 1 of the new PID namespace and dies with this process
   (PR_SET_PDEATHSIG), so killing this process kills every process the program started;
3. in the child: resource limits (CPU seconds, address space, file size, processes, open
   files, no core dumps), a Landlock ruleset (read/execute anywhere, write only beneath the
   work directory, no TCP bind/connect, no signals or abstract sockets outside the sandbox),
   then (root) switch to the unprivileged uid chosen by the parent, and exec
   ``python -I -B program.py`` in the work directory.

Whatever could not be applied on this machine (no root, old kernel) is skipped and reported
in ``isolation.json`` next to the work directory.
"""

import ctypes
import json
import os
import resource
import shutil
import signal
import struct
import sys
import traceback

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID = 0x00020000, 0x40000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_RULE_PATH_BENEATH, LANDLOCK_RULE_NET_PORT = 1, 2
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR, FS_TRUNCATE = 1, 2, 4, 8, 1 << 14

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def _check(result: int, what: str) -> int:
    if result < 0:
        raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")
    return result


def make_namespaces(config: dict) -> list[str]:
    """New mount/net/PID namespaces and a size-limited tmpfs on the work directory (root only)."""
    _check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID), "unshare")
    applied = ["net_namespace", "pid_namespace"]
    _check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    options = f"size={config['disk_bytes']},nr_inodes=4096,mode=0700,uid={config['uid']},gid={config['uid']}"
    _check(
        libc.mount(b"tmpfs", config["workdir"].encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options.encode()),
        "mount",
    )
    return applied + ["tmpfs_workdir"]


def set_limits(config: dict) -> None:
    cpu = config["cpu_s"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (config["memory_bytes"],) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (config["file_bytes"],) * 2)
    resource.setrlimit(resource.RLIMIT_NPROC, (config["processes"],) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (config["open_files"],) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _allow_path(ruleset: int, path: str, access: int) -> None:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        attr = ctypes.create_string_buffer(struct.pack("=Qi", access, fd))
        _check(
            libc.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, attr, 0),
            "landlock_add_rule",
        )
    finally:
        os.close(fd)


def restrict_with_landlock(workdir: str) -> str:
    """Read/execute everywhere, write beneath `workdir` only; no TCP; scoped signals/sockets."""
    abi = _check(libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0, 1), "landlock ABI")
    all_fs = (1 << {1: 13, 2: 14, 3: 15, 4: 15}.get(abi, 16)) - 1
    handled = [all_fs, 0b11 if abi >= 4 else 0, 0b11 if abi >= 6 else 0]
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    attr = ctypes.create_string_buffer(struct.pack("=QQQ", *handled)[:size])
    ruleset = _check(libc.syscall(SYS_LANDLOCK_CREATE_RULESET, attr, size, 0), "landlock_create_ruleset")
    _allow_path(ruleset, "/", FS_READ_FILE | FS_READ_DIR | FS_EXECUTE)
    _allow_path(ruleset, workdir, all_fs)
    _allow_path(ruleset, "/dev/null", FS_READ_FILE | FS_WRITE_FILE | (FS_TRUNCATE if abi >= 3 else 0))
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    os.close(ruleset)
    return f"landlock_abi_{abi}"


def run_confined_child(config: dict, applied: list[str]) -> None:
    """In the forked child: limits, Landlock, drop root, exec the program. Never returns."""
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    report = open(config["report"], "w")  # opened before Landlock forbids writing there
    set_limits(config)
    applied.append("rlimits")
    try:
        applied.append(restrict_with_landlock(config["workdir"]))
    except OSError as error:
        applied.append(f"no_landlock ({error.strerror})")
    if config["uid"] is not None:
        os.setgroups([])
        os.setgid(config["uid"])
        os.setuid(config["uid"])
        applied.append(f"uid_{config['uid']}")
    json.dump(applied, report)
    report.close()
    os.chdir(config["workdir"])
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": config["workdir"]}
    os.execve(config["interpreter"], [config["interpreter"], "-I", "-B", "program.py"], env)


def main() -> None:
    config = json.loads(sys.argv[1])
    applied: list[str] = []
    if config["uid"] is not None:
        try:
            applied += make_namespaces(config)
        except OSError as error:
            applied.append(f"no_namespaces ({error.strerror})")
    shutil.copy(config["program"], os.path.join(config["workdir"], "program.py"))
    if config["uid"] is not None:
        os.chown(config["workdir"], config["uid"], config["uid"])
    child = os.fork()
    if child == 0:
        try:
            run_confined_child(config, applied)
        except BaseException:
            traceback.print_exc()
        os._exit(125)
    code = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
