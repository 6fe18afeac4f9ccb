"""The output folder of `harness table1`, held for one invocation.

    with output_folder(Path("runs/table1-tiny")):   # ConfigError (exit 2) before any job starts
        ...                                          # runs/, logs/, the report

A file in the way, a read-only place or a missing permission is refused in one line before any
work (not job by job, later). Two invocations on one folder would run the same jobs twice and
fight over each training's folder and over the report: the second is refused at once, naming the
pid of the first (an flock on <folder>/.table1.lock, like harness.training.run_dir's lock of a training
folder; the kernel drops it when the process ends, however it ends).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from harness.common.files import ensure_writable_folder, hold_lock


@contextlib.contextmanager
def output_folder(root: Path):
    """Hold `root` for this invocation: one-line ConfigError (exit 2) for a file in the way, a place
    that cannot be written, or another live `harness table1` there (an flock on <root>/.table1.lock,
    held until the end, like harness.training.run_dir's lock of a training folder)."""
    ensure_writable_folder(root, "--output-dir")
    for sub in ("runs", "logs"):  # every job writes there
        ensure_writable_folder(root / sub, f"the {sub} folder of --output-dir")
    handle = hold_lock(
        root / ".table1.lock",
        f"--output-dir={str(root)!r} is in use by another harness table1 (pid {{pid}}); wait for it to end or "
        "choose another --output-dir",
        f"--output-dir={str(root)!r}",
    )
    try:
        yield
    finally:
        handle.close()  # releases the lock
