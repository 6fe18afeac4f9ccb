"""Child side of `benchmarks.sandbox.confined_run`: confine a process tree, then exec the untrusted program.

Run by the sandbox as ``python -I -S /proc/self/fd/S C`` inside a fresh session, with
stdin/stdout/stderr already redirected to files: this script and its JSON config arrive as
files the caller opened (fd S, and a pipe on fd C), so neither needs a path the boot could not
read (a checkout in a 0700 folder) and the command line that the program can read as
/proc/1/cmdline names no host path but the interpreter's. Standard library only. Three processes:

* boot (this process, in the caller's PID namespace): makes new mount, network, IPC and PID
  namespaces (as root directly, otherwise inside a new user namespace), forks init and waits
  for it. On SIGTERM (the caller's timeout) it SIGKILLs init. Either way it exits only once
  init has been reaped, and the kernel reaps a PID namespace's init only after every other
  process of the namespace is gone: when boot exits, nothing the program started is left.
* init (PID 1 of the new namespace, keeps boot's uid and process group): builds the private
  root the program sees, forks the program and exits as soon as the program does. Its death
  makes the kernel SIGKILL every process left in the namespace, whatever its session, process
  group or signal mask.
* the program (PID 2): joins the run's cgroups (the whole tree's memory and process bound, see
  `benchmarks.sandbox.cgroup`), resource limits, Landlock, a seccomp filter, the unprivileged
  uid, then exec ``python -I -B program.py`` in its work directory.

Whatever could not be applied on this machine (no namespaces, old kernel) is skipped and
reported in ``isolation.json`` next to the work directory.
"""

import ctypes
import json
import os
import platform
import resource
import shutil
import signal
import struct
import sys
import traceback

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER = 0x00020000, 0x08000000, 0x10000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE, MNT_DETACH = 4096, 0x4000, 0x40000, 2
PR_SET_PDEATHSIG, PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS, SECCOMP_MODE_FILTER = 1, 22, 38, 2
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR, FS_TRUNCATE = 1, 2, 4, 8, 1 << 14
# Per machine: seccomp's AUDIT_ARCH value and the system call numbers we refuse or use.
MACHINES = {
    "x86_64": {"arch": 0xC000003E, "socket": 41, "io_uring_setup": 425, "pivot_root": 155, "keys": (248, 249, 250)},
    "aarch64": {"arch": 0xC00000B7, "socket": 198, "io_uring_setup": 425, "pivot_root": 41, "keys": (217, 218, 219)},
}
# What the program may see of the host, read-only: the system and the interpreter's install.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
DEVICES = ("null", "zero", "full", "random", "urandom")

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def _check(result: int, what: str) -> int:
    if result < 0:
        raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")
    return result


def _mount(source: str | None, target: str, fstype: str | None, flags: int, options: str | None = None) -> None:
    source_, target_, fstype_, options_ = (None if s is None else s.encode() for s in (source, target, fstype, options))
    _check(libc.mount(source_, target_, fstype_, flags, options_), f"mount {target}")


def make_namespaces(config: dict) -> list[str]:
    """New mount/net/IPC/PID namespaces: directly as root with a uid to switch to, else
    inside a new user namespace (whose creator holds every capability within it)."""
    shared = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWPID
    if config["uid"] is not None:
        _check(libc.unshare(shared), "unshare")
        return ["net_namespace", "ipc_namespace", "pid_namespace"]
    # an unprivileged caller maps its ids to themselves; root (who has no Python that other
    # users may run) to 1000, so that exec drops the namespace's capabilities either way
    uid, gid = os.getuid(), os.getgid()
    _check(libc.unshare(CLONE_NEWUSER | shared), "unshare")
    maps = (("setgroups", "deny"), ("uid_map", f"{uid or 1000} {uid} 1"), ("gid_map", f"{gid or 1000} {gid} 1"))
    for name, text in maps:
        with open(f"/proc/self/{name}", "w") as stream:
            stream.write(text)
    return ["user_namespace", "net_namespace", "ipc_namespace", "pid_namespace"]


def _bind_read_only(source: str, target: str) -> None:
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        open(target, "a").close()
    _mount(source, target, None, MS_BIND | MS_REC)
    _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)


def build_private_root(config: dict) -> list[str]:
    """In init: a new root holding only the system directories, the interpreter's install, a
    few devices, a /proc of this PID namespace and the work directory (a size-limited tmpfs at
    the same path as outside); then pivot into it and detach the host's root entirely."""
    applied = []
    new = config["view"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount propagates to the host
    _mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=1024,mode=0755")
    shown = [d for d in SYSTEM_DIRS if os.path.lexists(d)]
    for path in config["interpreter_dirs"]:
        if not any(path == d or path.startswith(d + "/") for d in shown):
            shown.append(path)
    for path in shown:
        if os.path.islink(path):  # merged /usr: /bin -> usr/bin
            os.symlink(os.readlink(path), new + path)
        else:
            _bind_read_only(path, new + path)
    os.mkdir(new + "/dev", 0o755)
    for device in (d for d in DEVICES if os.path.exists(f"/dev/{d}")):
        _bind_read_only(f"/dev/{device}", f"{new}/dev/{device}")
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        os.symlink(f"/proc/self/fd/{i}", f"{new}/dev/{name}")
    os.symlink("/proc/self/fd", f"{new}/dev/fd")
    os.mkdir(new + "/proc", 0o555)
    try:  # subset=pid: only process directories, no host-wide files such as /proc/sys
        _mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "subset=pid")
        applied.append("private_proc")
    except OSError as error:  # e.g. a container that masks parts of /proc: then /proc stays empty
        applied.append(f"no_private_proc ({error.strerror})")
    workdir = new + config["workdir"]
    os.makedirs(workdir, mode=0o755)
    options = f"size={config['disk_bytes']},nr_inodes=4096,mode=0700"
    if config["uid"] is not None:
        options += f",uid={config['uid']},gid={config['uid']}"
    _mount("tmpfs", workdir, "tmpfs", MS_NOSUID | MS_NODEV, options)
    shutil.copy(config["program"], workdir + "/program.py")
    _mount(None, new, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    # pivot_root(".", ".") stacks the old root on top of the new one; detaching it leaves the
    # host's tree unreachable from this mount namespace
    os.chdir(new)
    _check(libc.syscall(MACHINES[platform.machine()]["pivot_root"], b".", b"."), "pivot_root")
    _check(libc.umount2(b".", MNT_DETACH), "umount old root")
    os.chdir("/")
    return applied + ["private_root", "tmpfs_workdir"]


def set_limits(config: dict, applied: list[str]) -> None:
    cpu = config["cpu_s"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (config["memory_bytes"],) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (config["file_bytes"],) * 2)
    # the kernel counts RLIMIT_NPROC per uid of a user namespace: inside ours, boot and init
    # (which joined it with unshare) count too, so `processes` is left to the program's tree
    processes = config["processes"] + (2 if "user_namespace" in applied else 0)
    resource.setrlimit(resource.RLIMIT_NPROC, (processes,) * 2)
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
    _check(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    os.close(ruleset)
    return f"landlock_abi_{abi}"


def install_seccomp_filter() -> list[str]:
    """A seccomp filter: socket(2) fails with EACCES for every address family, so there is no
    way to reach a network or any host socket, pathname or abstract UNIX ones included
    (socketpair(2), which can only connect the program to itself, still works). Also refused:
    io_uring (its IORING_OP_SOCKET would bypass the filter), every system call through a
    foreign ABI (x86_64's int 0x80 and x32 tables number socket differently), and the kernel
    keyrings (add_key, request_key, keyctl fail with EPERM): keys belong to the uid, not to a
    process, and would outlive the run for a later run that draws the same uid to read."""
    machine = MACHINES[platform.machine()]
    load, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JGE|K, BPF_RET|K
    allow, eperm, eacces, enosys = 0x7FFF0000, *(0x00050000 | errno for errno in (1, 13, 38))  # RET_ALLOW/_ERRNO
    refused = [(machine["socket"], eacces), (machine["io_uring_setup"], enosys)]
    refused += [(number, eperm) for number in machine["keys"]]
    program = [
        (load, 0, 0, 4),  # A = seccomp_data.arch
        (jeq, 1, 0, machine["arch"]),
        (ret, 0, 0, enosys),
        (load, 0, 0, 0),  # A = seccomp_data.nr
        (jge, 0, 1, 0x40000000),  # __X32_SYSCALL_BIT
        (ret, 0, 0, enosys),
    ]
    for number, action in refused:
        program += [(jeq, 0, 1, number), (ret, 0, 0, action)]
    program.append((ret, 0, 0, allow))
    filters = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *op) for op in program))
    fprog = struct.pack("@HP", len(program), ctypes.addressof(filters))  # struct sock_fprog
    _check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.c_char_p(fprog), 0, 0), "seccomp")
    return ["seccomp_no_sockets", "seccomp_no_keyrings"]


def join_tree_cgroups(config: dict) -> str:
    """Move this process (writing 0 names the writer) into the run's cgroups, whose cgroup.procs
    files the caller opened for us: from here on everything the program and its descendants
    allocate or start counts against the whole tree's bound, and nothing of boot's or init's.
    If the kernel refuses, the lower process cap stands in (see benchmarks.sandbox.cgroup)."""
    tree = config["tree"]
    try:
        for fd in tree["fds"]:
            os.write(fd, b"0")
        return tree["label"]
    except OSError as error:
        config["processes"] = tree["processes_without_cgroup"]
        return f"{tree['label_without_cgroup']} (cgroup: {error.strerror})"
    finally:
        _close_all(tree["fds"])


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def run_program(config: dict, applied: list[str], report) -> None:
    """In the program's process: cgroups, limits, Landlock, seccomp, drop root, exec. Never returns."""
    applied.append(join_tree_cgroups(config))
    set_limits(config, applied)
    applied.append("rlimits")
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")  # needed by both below
    try:
        applied.append(restrict_with_landlock(config["workdir"]))
    except OSError as error:
        applied.append(f"no_landlock ({error.strerror})")
    applied += install_seccomp_filter()  # no fallback: on a machine missing from MACHINES the run fails
    if config["uid"] is not None:
        os.setgroups([])
        os.setgid(config["uid"])
        os.setuid(config["uid"])
        applied.append(f"uid_{config['uid']}")
    # a uid change clears the parent-death signal, so it is set after it; it matters only
    # without a PID namespace, where init is not PID 1 and its death kills nothing by itself
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    json.dump(applied, report)
    report.close()
    os.chdir(config["workdir"])
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": config["workdir"], "TMPDIR": config["workdir"]}
    os.execve(config["interpreter"], [config["interpreter"], "-I", "-B", "program.py"], env)


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def _fork(body) -> int:
    """Fork; the child runs `body()` and exits 125 (traceback on stderr) if it returns or raises."""
    child = os.fork()
    if child == 0:
        try:
            body()
        except BaseException:
            traceback.print_exc()
        os._exit(125)
    return child


def run_init(config: dict, applied: list[str], report) -> None:
    """PID 1 of the namespace: prepare the root, start the program, exit when it exits."""
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # init never changes uid: this sticks
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    if "pid_namespace" in applied:
        try:
            applied += build_private_root(config)
        except OSError as error:  # then the program sees the host's tree, as without namespaces
            applied.append(f"no_private_root ({error.strerror})")
    if "private_root" not in applied:
        shutil.copy(config["program"], os.path.join(config["workdir"], "program.py"))
        if config["uid"] is not None:
            os.chown(config["workdir"], config["uid"], config["uid"])
    program = _fork(lambda: run_program(config, applied, report))
    report.close()
    _close_all(config["tree"]["fds"])
    while True:  # as PID 1 we also inherit orphans: reap them until the program itself exits
        pid, status = os.wait()
        if pid == program:
            os._exit(_exit_code(status))


def main() -> None:
    with open(int(sys.argv[1])) as stream:  # the config pipe
        config = json.load(stream)
    os.close(config["script_fd"])  # this script's file: the program has no use for it
    report = open(config["report"], "w")  # before anything hides or forbids that path
    applied: list[str] = []
    try:
        applied += make_namespaces(config)
    except OSError as error:
        applied.append(f"no_namespaces ({error.strerror})")
    # SIGTERM asks for the end of the run; blocked until init's pid is known, so never missed
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
    init = _fork(lambda: run_init(config, applied, report))
    report.close()
    _close_all(config["tree"]["fds"])
    signal.signal(signal.SIGTERM, lambda *_: os.kill(init, signal.SIGKILL))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    # wait without reaping: a zombie init keeps its pid, so a late SIGTERM cannot hit a reuse
    os.waitid(os.P_PID, init, os.WEXITED | os.WNOWAIT)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(_exit_code(os.waitpid(init, 0)[1]))


if __name__ == "__main__":
    main()
