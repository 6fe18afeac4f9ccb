"""Child processes that never outlive the command that started them.

    subprocess.Popen(cmd, preexec_fn=die_with_parent(), ...)   # worker, training job

A sweep's workers and Table 1's trainings are separate processes. When the user's command is
killed with SIGKILL it cannot clean up, and its children would go on as orphans that compete
with the user's next command (and collide with its re-run). Linux's parent-death signal
(prctl PR_SET_PDEATHSIG) asks the kernel to send the child SIGTERM the moment its parent dies;
the child's own SIGTERM handling then closes its runs as KILLED, and the re-run resumes them.

The signal fires when the *thread* that forked the child ends, not only the process: start
children from a thread that lives as long as they do (the thread that waits for them). Off
Linux the preexec function is a no-op.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGTERM):
    """A `preexec_fn` for subprocess.Popen: the child gets `sig` when its parent dies."""
    parent = os.getpid()

    def preexec() -> None:
        if not sys.platform.startswith("linux"):
            return
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request took effect
            os.kill(os.getpid(), sig)

    return preexec
