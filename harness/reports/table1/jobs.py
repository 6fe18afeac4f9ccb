"""Table 1's job runner: `workers` threads take jobs from a queue; each job runs its child processes
(`harness train`, `harness eval`) one at a time and waits for them.

    runner = Runner(workers=2, log=print)
    failures = runner.run([(job, lambda: run_job(job, runner)), ...])   # [(job, exception)]
    runner.call("train", argv, new_log(logs, "GRPO-seed0-abc", "train"), env)  # in a job; JobFailed

What it guarantees (tests/harness/reports/table1/test_table1_jobs.py checks each):

- Ctrl-C or SIGTERM (which the CLI turns into KeyboardInterrupt in the main thread, the one that
  waits in `run`): no child starts after it, every running child gets one SIGTERM (`harness train`
  and `harness eval` close their MLflow runs as KILLED on it) and SIGKILL after GRACE_S, then the
  KeyboardInterrupt goes on up. A ThreadPoolExecutor cannot do this: its `with` waits for every
  queued job.
- SIGKILL of this process: every child is started with die_with_parent() from the thread that
  waits for it, so the kernel sends it SIGTERM; no orphan competes with the next invocation.
- Children run in a session of their own, so a terminal's Ctrl-C reaches this process only and the
  child gets exactly one SIGTERM: a second signal in the middle of its cleanup could leave its run
  RUNNING.
- Every child writes to a log file of its own (nothing else ever writes there), each line with the
  passwords of URLs masked; a failure quotes that child's error line, not someone else's.
- A training folder locked by a live `harness train` (an orphan of an earlier invocation, see
  harness.training.run_dir.RunDirectory.claim) is waited for, with a line saying so, before the job goes on.

Only the standard library and harness.common: importing it costs nothing.
"""

from __future__ import annotations

import fcntl
import os
import re
import signal
import subprocess
import threading
import time
from collections import deque
from pathlib import Path

from harness.common.processes import die_with_parent
from harness.common.uris import redact

GRACE_S = 30.0  # how long stopped children get to close their MLflow runs before SIGKILL
POLL_S = 0.2  # how often the main thread looks up from waiting (signals are handled between looks)


class Stopped(Exception):
    """Raised inside a job when the runner was stopped: the job ends quietly, it did not fail."""


class JobFailed(Exception):
    """A child process exited non-zero: `error` is its own error line, `log` the file that holds its output."""

    def __init__(self, what: str, error: str, log: Path):
        super().__init__(f"{what} failed: {error} (log: {log})")
        self.what, self.error, self.log = what, error, log


def new_log(folder: Path, name: str, kind: str) -> Path:
    """A log file path no other process writes to: `<name>.<kind>.<time>-<pid>.log` in `folder`."""
    return folder / f"{name}.{kind}.{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"


def error_line(log: Path, code: int) -> str:
    """The child's own error: its `harness <cmd>: error: ...` line, else the exception line of its
    last traceback, else its last line (at most 300 characters)."""
    try:
        lines = [line.rstrip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        lines = []
    found = next((line for line in reversed(lines) if re.match(r"harness [\w-]+: (error|interrupted)", line)), None)
    if found is None:
        starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")]
        after = [line for line in lines[starts[-1] + 1 :] if not line[:1].isspace()] if starts else []
        ended = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        found = after[0] if after else (lines[-1] if lines else f"{ended}, no output")
    return redact(found)[:300]


def _failed_part(what: str, error: str) -> str:
    """Of a child that runs several commands ("train + eval"), the one whose error line `error` is."""
    return next((part for part in what.split(" + ") if error.startswith(f"harness {part}:")), what)


def _copy_redacted(stream, log: Path) -> None:
    """Copy the child's output into its log line by line, passwords masked (runs in its own thread)."""
    try:
        with open(log, "w", encoding="utf-8", errors="replace") as sink:
            for line in stream:
                sink.write(redact(line))
                sink.flush()  # `tail -f` shows a long training as it goes
    except (OSError, ValueError):
        pass  # the log's place vanished: the exit status still tells what happened
    finally:
        stream.close()


class Runner:
    """Runs jobs on `workers` threads and is the only one that starts their child processes."""

    def __init__(self, workers: int, log=print):
        self.workers, self.log = workers, log
        self._stop = threading.Event()
        self._lock = threading.Lock()  # guards _children and the stop check before a start
        self._children: set[subprocess.Popen] = set()

    def run(self, jobs: list[tuple[object, callable]]) -> list[tuple[object, BaseException]]:
        """Run every (key, job function); returns [(key, exception)] of the jobs that failed. A
        KeyboardInterrupt while waiting stops everything (see the module docstring) and is re-raised."""
        queue, failures = deque(jobs), []

        def worker(finished: threading.Event) -> None:
            try:
                while not self._stop.is_set():
                    with self._lock:
                        if not queue:
                            return
                        key, job = queue.popleft()
                    try:
                        job()
                    except Stopped:
                        return
                    except Exception as error:  # one job's failure never stops the others
                        failures.append((key, error))
            finally:
                finished.set()

        ends = [threading.Event() for _ in range(self.workers)]
        for i, finished in enumerate(ends):
            threading.Thread(target=worker, args=(finished,), name=f"table1-worker-{i}", daemon=True).start()
        try:
            _wait(ends, deadline=None)
        except KeyboardInterrupt:
            self.stop(ends)
            raise
        return failures

    def stop(self, ends: list[threading.Event]) -> None:
        """No new child; SIGTERM to the running ones, SIGKILL to what is left after GRACE_S (at once
        on a second Ctrl-C); wait for the workers to end."""
        with self._lock:
            self._stop.set()
            children = list(self._children)
        for child in children:
            _signal(child, signal.SIGTERM, group=False)
        if children:
            self.log(f"stopping: {len(children)} running job(s) got SIGTERM; waiting up to {GRACE_S:.0f} s for them")
        try:
            _wait(ends, deadline=time.monotonic() + GRACE_S)
        except KeyboardInterrupt:
            pass  # a second Ctrl-C: no more patience
        with self._lock:
            children = list(self._children)
        for child in children:
            self.log(f"stopping: pid {child.pid} did not end; SIGKILL")
            _signal(child, signal.SIGKILL, group=True)
        _wait(ends, deadline=time.monotonic() + 5)

    def call(self, what: str, argv: list[str], log: Path, env: dict[str, str]) -> None:
        """Run one child (`what`: train, eval, or "train + eval" in one process) to its end with its output
        in `log`; JobFailed on a non-zero exit, Stopped if the runner was stopped (before the start, or
        while it ran)."""
        log.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:  # a stop either comes before this start or sees this child
            if self._stop.is_set():
                raise Stopped
            child = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                text=True,
                errors="replace",
                start_new_session=True,
                preexec_fn=die_with_parent(),  # this thread waits for it: the signal fires when it dies
            )
            self._children.add(child)
        copier = threading.Thread(target=_copy_redacted, args=(child.stdout, log), daemon=True)
        copier.start()
        try:
            code = child.wait()
            copier.join(10)  # a grandchild may hold the pipe open: do not wait for it forever
        finally:
            with self._lock:
                self._children.discard(child)
        if self._stop.is_set():
            raise Stopped
        if code != 0:
            error = error_line(log, code)
            raise JobFailed(_failed_part(what, error), error, log)

    def wait_for_run_dir(self, folder: Path) -> bool:
        """Wait while a live `harness train` holds `folder`/.lock; True if it had to wait."""
        waited = False
        while True:
            try:
                with open(folder / ".lock") as handle:
                    try:
                        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        return waited  # closing the file releases the lock at once
                    except BlockingIOError:
                        owner = handle.read().strip() or "unknown"
            except OSError:
                return waited  # no lock file (or none we can read): the training reports its own problem
            if not waited:
                self.log(
                    f"{folder} is in use by a harness train (pid {owner}), perhaps left by an earlier table1; "
                    "waiting for it to end"
                )
                waited = True
            if self._stop.wait(1.0):
                raise Stopped


def _wait(ends: list[threading.Event], deadline: float | None) -> None:
    """Wait until every worker has set its event (or the deadline), looking up every POLL_S so that
    the main thread handles signals. Not Thread.join: on Python 3.11 a KeyboardInterrupt inside join()
    marks the thread as ended while it still runs, and its child would be killed without its grace."""
    for finished in ends:
        while not finished.is_set() and (deadline is None or time.monotonic() < deadline):
            finished.wait(POLL_S)


def _signal(child: subprocess.Popen, sig: int, group: bool) -> None:
    try:
        if group:  # the child leads its own session: its group holds its own children too
            os.killpg(child.pid, sig)
        else:
            child.send_signal(sig)
    except (ProcessLookupError, PermissionError):
        pass  # already gone


KIND_NAMES = {"train": "a training", "eval": "an evaluation"}


class Progress:
    """One line per job as it ends: what ran, how long, what is still going, and how long the rest
    will take (from the mean duration of finished jobs of the same kind: trained or evaluated only)."""

    def __init__(self, kinds: list[str], workers: int, log):
        self.left = {kind: kinds.count(kind) for kind in set(kinds)}
        self.total, self.workers, self.log = len(kinds), workers, log
        self.done, self.running, self.durations = 0, set(), {kind: [] for kind in self.left}
        self.lock, self.started = threading.Lock(), time.monotonic()

    def start(self, name: str) -> None:
        with self.lock:
            self.running.add(name)

    def eta(self) -> str:
        seconds = 0.0
        for kind, left in self.left.items():
            if left and not self.durations[kind]:
                return f"the time left is known once {KIND_NAMES.get(kind, kind)} has finished"
            if left:
                seconds += left * sum(self.durations[kind]) / len(self.durations[kind])
        return f"about {seconds / self.workers / 60:.0f} min left"

    def end(self, kind: str, name: str, seconds: float, what: str, timed: bool) -> None:
        """`timed`: the job did its work (its duration predicts the others'), not skipped or failed."""
        with self.lock:
            self.running.discard(name)
            self.done += 1
            self.left[kind] -= 1
            if timed:
                self.durations[kind].append(seconds)
            elapsed = time.monotonic() - self.started
            running = ", ".join(sorted(self.running)) or "nothing"
            self.log(
                f"[{self.done:>3}/{self.total}] {name}: {what} in {seconds / 60:.1f} min · running: {running} · "
                f"elapsed {elapsed / 60:.0f} min, {self.eta()}"
            )
