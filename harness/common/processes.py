"""Child processes that never outlive the command that started them.

    subprocess.Popen(cmd, preexec_fn=die_with_parent(), ...)   # worker, training job
    interrupt_on_sigterm()      # the CLI: SIGTERM ends a command the way Ctrl-C does
    raise_if_terminated()       # at a safe point (each RL step): a swallowed interrupt is raised again
    forget_termination()        # when the command ends: the record belongs to it alone

A sweep's workers and Table 1's trainings are separate processes. When the user's command is
killed with SIGKILL it cannot clean up, and its children would go on as orphans that compete
with the user's next command (and collide with its re-run). Linux's parent-death signal
(prctl PR_SET_PDEATHSIG) asks the kernel to send the child SIGTERM the moment its parent dies;
the child's own SIGTERM handling then closes its runs as KILLED, and the re-run resumes them.

The signal fires when the *thread* that forked the child ends, not only the process: start
children from a thread that lives as long as they do (the thread that waits for them). Off
Linux the preexec function is a no-op.

SIGTERM is turned into KeyboardInterrupt (`interrupt_on_sigterm`), so every command closes its
runs as KILLED on it, as on Ctrl-C. Python runs signal handlers between bytecodes of the main
thread; an exception raised while the interpreter is inside a garbage-collection or weakref
callback is printed as "Exception ignored" and dropped, and the command would go on as if nothing
happened. So the signal is also recorded, and long loops call `raise_if_terminated` at points
where stopping is safe (training: every RL step).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1
_received: list[int] = []  # the termination signals this process got (set by the handler)


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


def _interrupt(signum, frame) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


def interrupt_on_sigterm() -> None:
    """SIGTERM raises KeyboardInterrupt in the main thread (and is recorded); a handler someone else
    installed first is left alone."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupt)


def termination_requested() -> bool:
    """Has this process been asked to stop (SIGTERM through `interrupt_on_sigterm`)?"""
    return bool(_received)


def raise_if_terminated() -> None:
    """KeyboardInterrupt if a termination signal arrived, even one whose exception was swallowed (the
    record is used up: one signal, one interrupt)."""
    if _received:
        _received.clear()
        raise KeyboardInterrupt


def forget_termination() -> None:
    """The command that was asked to stop has ended: a later one in this process (a test, a caller
    running several commands) starts with no record."""
    _received.clear()


def is_stopped(pid: int) -> bool:
    """Whether process `pid` is stopped (SIGSTOP, SIGTSTP, a debugger): its state in /proc is T or t.
    False where /proc does not say (not Linux, the process gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[-1].split()  # the name in parentheses may hold spaces
    except OSError:
        return False
    return bool(fields) and fields[0] in ("T", "t")
