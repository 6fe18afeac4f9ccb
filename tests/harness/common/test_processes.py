"""harness.common.processes: a child started with die_with_parent() ends when its parent is SIGKILLed."""

import os
import signal
import subprocess
import sys
import time

import pytest

from harness.common.processes import is_stopped

PARENT = """
import subprocess, sys, time
from harness.common.processes import die_with_parent
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], preexec_fn=die_with_parent())
print(child.pid, flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie (reaped by init soon) counts as gone
        return stat.read().split()[2] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signals are Linux's")
def test_child_ends_when_its_parent_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    assert _alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


SWALLOWED = """
import os, signal
from harness.common.processes import interrupt_on_sigterm, raise_if_terminated

interrupt_on_sigterm()


class SignalledWhileCollected:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, inside __del__
        sum(range(1000))


SignalledWhileCollected()  # the KeyboardInterrupt raised inside __del__ is printed and dropped
print("went on", flush=True)
try:
    raise_if_terminated()
except KeyboardInterrupt:
    print("raised again", flush=True)
"""


def test_a_sigterm_whose_interrupt_was_swallowed_is_raised_again():
    proc = subprocess.run([sys.executable, "-c", SWALLOWED], capture_output=True, text=True, timeout=60)
    assert "Exception ignored" in proc.stderr and "KeyboardInterrupt" in proc.stderr  # what Python does
    assert proc.stdout.split() == ["went", "on", "raised", "again"]


def test_a_handled_termination_does_not_stop_the_next_command(monkeypatch):
    """In a process that runs several commands (tests, callers of harness.cli.main), the record of a
    SIGTERM belongs to the command it stopped: raised once, forgotten when the command ends."""
    from harness.common import processes

    monkeypatch.setattr(processes, "_received", [])
    processes._received.append(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        processes.raise_if_terminated()
    processes.raise_if_terminated()  # used up
    processes._received.append(signal.SIGTERM)
    processes.forget_termination()
    processes.raise_if_terminated()


def test_the_cli_forgets_the_termination_of_the_command_it_ends(monkeypatch, capsys):
    from harness import cli
    from harness.common import processes

    monkeypatch.setattr(processes, "_received", [])

    def stopped(args, extra):
        processes._received.append(signal.SIGTERM)  # what the handler records before it raises
        raise KeyboardInterrupt

    monkeypatch.setitem(cli.COMMANDS, "models", stopped)
    assert cli.main(["models"]) == 130
    assert not processes.termination_requested()


def test_a_stopped_process_is_seen_as_stopped():
    child = subprocess.Popen(["sleep", "30"])
    try:
        assert not is_stopped(child.pid)
        child.send_signal(signal.SIGSTOP)
        for _ in range(100):  # the state changes asynchronously
            if is_stopped(child.pid):
                break
            time.sleep(0.01)
        assert is_stopped(child.pid)
        child.send_signal(signal.SIGCONT)
    finally:
        child.kill()
        child.wait()
    assert not is_stopped(child.pid)  # gone: /proc says nothing
