"""Bound the memory and the process count of a sandboxed program's whole process tree.

RLIMIT_AS bounds the address space of one process and RLIMIT_NPROC the number of processes,
so on their own they let one program hold `processes` x `memory_mb` (32 x 1 GB by default,
more than many machines have). `TreeBound.make` picks, per run, the first bound this machine
offers, and `run_python` reports it in `SandboxResult.isolation`:

* ``tree_memory_cgroup_v2``: a cgroup of the run with memory.max = `memory_mb` (no swap) and
  pids.max = `processes`. It is made under the nearest cgroup above ours whose
  cgroup.subtree_control already enables the memory and pids controllers and in which we may
  make one: on a systemd host as root, typically the parent of our own cgroup; as a plain user,
  a cgroup that systemd delegated to that user. We never enable controllers ourselves (a change
  of the host's set-up).
* ``tree_memory_cgroup_v1``: the same with the legacy hierarchies (hybrid hosts, older
  containers): a child of our own memory cgroup with memory.limit_in_bytes (and
  memory.memsw.limit_in_bytes) = `memory_mb`, and, where mounted, a pids cgroup with pids.max.
* ``tree_memory_process_cap_N`` where no cgroup can be made (a container without cgroup
  access, most plain users): RLIMIT_NPROC drops to N = min(`processes`, PROCESS_CAP_FACTOR),
  so the tree holds at most PROCESS_CAP_FACTOR x `memory_mb` of address space. Threads count
  as processes for RLIMIT_NPROC, so such a program may start at most N - 1 threads.
* ``no_tree_memory_bound (...)``: root without any Python other users may run; the program
  runs as root in a user namespace, which RLIMIT_NPROC exempts.

Only the program and its descendants are in the cgroup (the program writes itself into it
before exec), not the sandbox's own boot and init processes. The kernel counts anonymous
memory, page cache and kernel memory, and the files the program writes in its tmpfs work
directory: so with a cgroup, `memory_mb` also bounds the sum of everything the tree holds, and
when it is exceeded the kernel kills a process of the tree (`run_python` notes it on stderr).
"""

import contextlib
import os
import re
import signal
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

PROCESS_CAP_FACTOR = 4
MOUNTINFO, OWN_CGROUPS = "/proc/self/mountinfo", "/proc/self/cgroup"
_PREFIX = "sandbox-"
_MB = 1 << 20


@dataclass
class TreeBound:
    label: str
    """What bounds the tree, as listed in `isolation` (see the module docstring)."""
    processes: int
    """RLIMIT_NPROC for the program."""
    cgroups: list[Path] = field(default_factory=list)
    """The run's cgroups (v2: one; v1: memory, and pids where mounted)."""
    processes_without_cgroup: int = PROCESS_CAP_FACTOR
    """The process cap that stands in if the program cannot join the cgroups."""

    @classmethod
    def make(cls, memory_mb: int, processes: int, *, cap_binds: bool = True) -> "TreeBound":
        """The bound for one run; `cap_binds` is False when RLIMIT_NPROC cannot bind (root)."""
        cap = max(1, min(processes, PROCESS_CAP_FACTOR))
        mounts, own = _cgroup_mounts(_read(MOUNTINFO)), _own_cgroups(_read(OWN_CGROUPS))
        name = f"{_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}"
        for label, make in (("tree_memory_cgroup_v2", _make_v2), ("tree_memory_cgroup_v1", _make_v1)):
            cgroups = make(mounts, own, name, memory_mb * _MB, processes)
            if cgroups:
                return cls(label, processes, cgroups, cap)
        if not cap_binds:
            return cls("no_tree_memory_bound (root is exempt from RLIMIT_NPROC)", processes)
        return cls(f"tree_memory_process_cap_{cap}", cap, processes_without_cgroup=cap)

    @property
    def label_without_cgroup(self) -> str:
        return f"tree_memory_process_cap_{self.processes_without_cgroup}"

    def open_procs(self) -> list[int]:
        """Write-only descriptors of the cgroups' cgroup.procs, for the program to join with. If
        one cannot be opened, the cgroups go and the process cap stands in."""
        fds: list[int] = []
        try:
            for group in self.cgroups:
                fds.append(os.open(group / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC))
            return fds
        except OSError as error:
            for fd in fds:
                os.close(fd)
            self.close()
            self.cgroups, self.processes = [], self.processes_without_cgroup
            self.label = f"{self.label_without_cgroup} (cgroup: {error.strerror})"
            return []

    def close(self) -> int:
        """Kill whatever is left in the cgroups and remove them; how many processes the kernel
        killed because the tree ran out of memory."""
        oom_kills = _oom_kills(self.cgroups[0]) if self.cgroups else 0
        for group in self.cgroups:
            _empty_and_remove(group)
        return oom_kills


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _cgroup_mounts(mountinfo: str) -> list[tuple[str, str, str, set[str]]]:
    """(root inside the hierarchy, mount point, fstype, super options) of each cgroup mount."""
    mounts = []
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4])  # \040 is a space
            mounts.append((fields[3], point, tail[0], set(tail[2].split(","))))
    return mounts


def _own_cgroups(text: str) -> dict[str, str]:
    """Our cgroup path per v1 controller, and under "" the v2 one (from /proc/self/cgroup)."""
    own = {}
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            own[controller.removeprefix("name=")] = path
    return own


def _own_dir(root: str, point: str, path: str) -> Path | None:
    relative = os.path.relpath(path, root)
    return None if relative.startswith("..") else Path(point, relative)


def _make(parent: Path, name: str, settings: dict[str, str], optional: tuple[str, ...] = ()) -> Path | None:
    """A cgroup `name` under `parent` with `settings` written, or None (and nothing left)."""
    group = parent / name
    try:
        group.mkdir()
    except OSError:
        return None
    try:
        for key, value in settings.items():
            if key in optional and not (group / key).exists():
                continue
            (group / key).write_text(value)
        return group
    except OSError:
        _empty_and_remove(group)
        return None


def _remove_stale(parent: Path) -> None:
    """Remove cgroups left by sandboxes that died before their clean-up (their owner is gone)."""
    with contextlib.suppress(OSError):
        for group in parent.glob(f"{_PREFIX}*-*"):
            owner = group.name[len(_PREFIX) :].split("-")[0]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                with contextlib.suppress(OSError):
                    group.rmdir()


def _make_v2(mounts, own, name: str, memory: int, processes: int) -> list[Path]:
    settings = {"memory.max": str(memory), "memory.swap.max": "0", "pids.max": str(processes)}
    for root, point, fstype, _ in mounts:
        start = _own_dir(root, point, own[""]) if fstype == "cgroup2" and "" in own else None
        for parent in [start, *start.parents] if start else []:
            if not parent.is_relative_to(point):
                break
            if {"memory", "pids"} <= set(_read(str(parent / "cgroup.subtree_control")).split()):
                _remove_stale(parent)
                if group := _make(parent, name, settings, optional=("memory.swap.max",)):
                    return [group]
    return []


def _v1_parent(mounts, own, controller: str) -> Path | None:
    for root, point, fstype, options in mounts:
        if fstype == "cgroup" and controller in options and controller in own:
            return _own_dir(root, point, own[controller])
    return None


def _make_v1(mounts, own, name: str, memory: int, processes: int) -> list[Path]:
    memory_parent = _v1_parent(mounts, own, "memory")
    if memory_parent is None:
        return []
    _remove_stale(memory_parent)
    limits = {"memory.limit_in_bytes": str(memory), "memory.memsw.limit_in_bytes": str(memory)}
    memory_group = _make(memory_parent, name, limits, optional=("memory.memsw.limit_in_bytes",))
    if memory_group is None:
        return []
    pids_parent = _v1_parent(mounts, own, "pids")
    if pids_parent is not None:
        _remove_stale(pids_parent)
    pids_group = pids_parent and _make(pids_parent, name, {"pids.max": str(processes)})
    return [memory_group, *([pids_group] if pids_group else [])]


def _oom_kills(group: Path) -> int:
    """The kernel's count of processes it killed in `group` for memory (v2 memory.events, v1
    memory.oom_control)."""
    for file in ("memory.events", "memory.oom_control"):
        for line in _read(str(group / file)).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
    return 0


def _empty_and_remove(group: Path, timeout_s: float = 1.0) -> None:
    """SIGKILL what is left in `group` (normally nothing: the PID namespace is already empty),
    then remove it; gives up silently after `timeout_s` (a later run removes it as stale)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pids = _read(str(group / "cgroup.procs")).split()
        if not pids:
            try:
                group.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:  # EBUSY while the last killed processes finish exiting
                pass
        elif (group / "cgroup.kill").exists():  # v2: one write kills the whole cgroup
            with contextlib.suppress(OSError):
                (group / "cgroup.kill").write_text("1")
        else:  # v1: its pids limit bounds how many a fork loop can add meanwhile
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(int(pid), signal.SIGKILL)
        time.sleep(0.005)
