"""The whole process tree of a sandboxed program is bounded, not just each of its processes."""

import os
from pathlib import Path

import pytest

from benchmarks.sandbox import cgroup as sandbox_cgroup
from benchmarks.sandbox.cgroup import PROCESS_CAP_FACTOR, TreeBound
from benchmarks.sandbox.confined_run import SandboxLimits, run_python

MEMORY_MB, CHILDREN, CHUNK_MB = 64, 8, 40
# Each child touches CHUNK_MB (within its own address-space limit) and keeps it; the parent
# prints how many children it started and how many still hold their chunk once every child has
# either reported or died. Unbounded, 8 x 40 MB would all be held at once.
HOARDERS = f"""
import os, select, time
r, w = os.pipe()
kids, holding, dead = set(), set(), set()


def settle(pids, seconds):
    # read the children's reports and reap the dead until each of `pids` has reported or died
    deadline = time.monotonic() + seconds
    while not pids <= holding | dead and time.monotonic() < deadline:
        if select.select([r], [], [], 0.01)[0]:
            holding.update(int(pid) for pid in os.read(r, 4096).split())
        dead.update(pid for pid in kids - dead if os.waitpid(pid, os.WNOHANG)[0])


for _ in range({CHILDREN}):
    try:
        pid = os.fork()
    except OSError:  # a process cap
        break
    if pid == 0:
        chunk = b"x" * ({CHUNK_MB} << 20)  # written, so really held, not just reserved
        os.write(w, b"%d " % os.getpid())
        time.sleep(60)
        os._exit(0)
    kids.add(pid)
    # one allocation at a time: with several in flight, the bound's OOM kills could take every holder
    # at once (seen under load: 8 started, 0 holding); one at a time, a kill leaves a holder standing
    settle({{pid}}, 1)
settle(kids, 4)
print(len(kids), len(holding - dead))
"""


def _bound_mb(isolation: list[str]) -> int:
    label = next(item for item in isolation if "tree_memory" in item)
    if label.startswith("tree_memory_cgroup"):
        return MEMORY_MB
    assert label.startswith("tree_memory_process_cap_"), label
    return int(label.split()[0].rsplit("_", 1)[1]) * MEMORY_MB


def _our_cgroups() -> list[Path]:
    """Cgroups this test process made and left behind, anywhere in the cgroup mounts."""
    points = {point for _, point, _, _ in sandbox_cgroup._cgroup_mounts(Path("/proc/self/mountinfo").read_text())}
    return [group for point in points for group in Path(point).rglob(f"sandbox-{os.getpid()}-*")]


@pytest.mark.parametrize("cgroups", [True, False], ids=["as_this_machine_offers", "without_cgroups"])
def test_children_together_stay_within_the_tree_bound(cgroups, monkeypatch):
    if not cgroups:
        monkeypatch.setattr(sandbox_cgroup, "MOUNTINFO", "/nonexistent/mountinfo")
    result = run_python(HOARDERS, limits=SandboxLimits(timeout_s=10.0, memory_mb=MEMORY_MB))
    bound_mb = _bound_mb(result.isolation)
    started, holding = map(int, result.stdout.split())
    assert result.passed, result.stderr
    assert started >= 3 and holding >= 1
    assert holding * CHUNK_MB <= bound_mb < CHILDREN * CHUNK_MB
    if not cgroups:
        assert bound_mb == PROCESS_CAP_FACTOR * MEMORY_MB
    assert _our_cgroups() == []


def test_cgroup_v2_is_made_under_the_nearest_cgroup_that_enables_memory_and_pids(tmp_path):
    """On a fake cgroup2 mount: our own cgroup /a/b enables nothing, /a enables memory and pids."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "cgroup.subtree_control").write_text("cpu memory pids\n")
    (tmp_path / "a" / "cgroup.subtree_control").write_text("memory pids\n")
    (tmp_path / "a" / "b" / "cgroup.subtree_control").write_text("\n")
    (tmp_path / "a" / "sandbox-999999999-stale").mkdir()  # left by a sandbox that died
    (tmp_path / "a" / f"sandbox-{os.getpid()}-live").mkdir()  # another run of a live one
    mountinfo = f"41 23 0:38 / {tmp_path} rw,relatime shared:9 - cgroup2 cgroup2 rw\n"
    mounts = sandbox_cgroup._cgroup_mounts(mountinfo)
    own = sandbox_cgroup._own_cgroups("9:name=systemd:/\n0::/a/b\n")
    [group] = sandbox_cgroup._make_v2(mounts, own, "sandbox-1-x", 64 << 20, 8)
    assert group == tmp_path / "a" / "sandbox-1-x"
    assert (group / "memory.max").read_text() == str(64 << 20) and (group / "pids.max").read_text() == "8"
    assert not (group / "memory.swap.max").exists()  # written only where the kernel offers it
    assert {p.name for p in (tmp_path / "a").glob("sandbox-*")} == {f"sandbox-{os.getpid()}-live", group.name}


def test_without_cgroups_the_process_cap_bounds_the_tree(monkeypatch):
    monkeypatch.setattr(sandbox_cgroup, "MOUNTINFO", "/nonexistent/mountinfo")
    assert TreeBound.make(1024, 32).processes == PROCESS_CAP_FACTOR
    assert TreeBound.make(1024, 2).label == "tree_memory_process_cap_2"
    assert TreeBound.make(1024, 32, cap_binds=False).label.startswith("no_tree_memory_bound")


def test_a_cgroup_that_cannot_be_joined_gives_way_to_the_process_cap(tmp_path):
    group = tmp_path / "sandbox-1-x"
    group.mkdir()  # no cgroup.procs to open: as for a cgroup we made but may not write into
    bound = TreeBound("tree_memory_cgroup_v2", 32, [group], processes_without_cgroup=4)
    assert bound.open_procs() == []
    assert (bound.processes, bound.cgroups) == (4, []) and bound.label.startswith("tree_memory_process_cap_4 (")
    assert not group.exists()
