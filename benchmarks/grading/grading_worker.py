"""Math grading off the main thread: a pool of worker subprocesses with a hard kill.

math-verify can only be interrupted by a signal in the main thread. Callers in other threads
(reward functions in a data-loader or trainer thread, a thread-pooled evaluator) hand their
answers to a worker process instead: it grades in its own main thread under the same
interval-timer budget (`benchmarks.grading.math_check.check_in_main_thread`), and the caller kills it
outright if it does not answer within the budget plus a grace period (a C-level hang the timer
cannot break). `benchmarks.grading.math_grader` uses this module; this module uses only `math_check`.

Protocol, one JSON line each way: ``[completion, reference, timeout_s]`` or
``[completion, reference, timeout_s, problem, fallback, truncated]`` -> ``[lenient, strict, extracted, reason]``
(the grader's arguments, `benchmarks.grading.math_check.check_in_main_thread`); the worker first prints
``"ready"`` once its imports are done.
Run by hand: ``python -m benchmarks.grading.grading_worker`` and type JSON lines.
"""

import atexit
import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.grading.math_check import check_in_main_thread, extracted_answer

_STARTUP_TIMEOUT_S = 120.0
# (completion, reference), optionally followed by (problem, fallback, truncated)
Job = tuple[str | None, str | None] | tuple[str | None, str | None, str | None, str, bool]
_GRACE_S = 2.0
_PROJECT_ROOT = str(Path(__file__).resolve().parents[2])


class _Worker:
    """One grading subprocess and a line reader with a deadline."""

    def __init__(self) -> None:
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(filter(None, [_PROJECT_ROOT, os.environ.get("PYTHONPATH")])),
        )
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.grading.grading_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._buffer = b""
        if self._read_line(_STARTUP_TIMEOUT_S) != "ready":
            self.kill()
            raise RuntimeError("the math grading worker did not start (python -m benchmarks.grading.grading_worker)")

    def _read_line(self, timeout_s: float) -> str | None:
        deadline = time.monotonic() + timeout_s
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def check(self, job: Job, timeout_s: float) -> tuple[bool, bool, str | None, str | None] | None:
        """(lenient, strict, extracted, reason), or None when the worker overran or died (it is then killed)."""
        completion, reference, *options = job
        try:
            self.process.stdin.write((json.dumps([completion, reference, timeout_s, *options]) + "\n").encode())
            self.process.stdin.flush()
        except BrokenPipeError:
            return None
        line = self._read_line(timeout_s + _GRACE_S)
        if line is None:
            self.kill()
            return None
        lenient, strict, extracted, reason = json.loads(line)
        return bool(lenient), bool(strict), extracted, reason

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            stream.close()


_idle_workers: list[_Worker] = []
_pool_lock = threading.Lock()


def _take_worker() -> _Worker:
    with _pool_lock:
        while _idle_workers:
            worker = _idle_workers.pop()
            if worker.alive():
                return worker
    return _Worker()


@atexit.register
def _close_idle_workers() -> None:
    with _pool_lock:
        for worker in _idle_workers:
            worker.kill()
        _idle_workers.clear()


def check_in_subprocess(jobs: list[Job], timeout_s: float) -> list[tuple[bool, bool, str | None, str | None]]:
    """Grade jobs (see `Job`): (lenient, strict, extracted, reason) each, in a worker; an overrun
    scores False in both modes, with the answer extracted here, and respawns it."""
    worker: _Worker | None = _take_worker()
    results = []
    for job in jobs:
        worker = worker or _Worker()
        result = worker.check(job, timeout_s)
        if result is None:
            completion, _, *options = job
            result, worker = (False, False, extracted_answer(completion, *options[1:]), "timed out"), None
        results.append(result)
    if worker is not None:
        with _pool_lock:
            _idle_workers.append(worker)
    return results


def main() -> None:
    print("ready", flush=True)
    for line in sys.stdin:
        completion, reference, timeout_s, *options = json.loads(line)
        print(json.dumps(check_in_main_thread(completion, reference, timeout_s, *options)), flush=True)


if __name__ == "__main__":
    main()
