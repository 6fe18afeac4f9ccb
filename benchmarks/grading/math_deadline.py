"""The main thread's deadline on one answer: an interval timer that raises `GradingTimeout`.

    deadline = Deadline(seconds)
    try:
        ...  # math-verify and sympy, interrupted once `seconds` have passed
    finally:
        deadline.disarm()

Used by `benchmarks.grading.math_check.check_in_main_thread`, which catches the timeout and scores
it False in both modes. Only usable from the main thread (signals).
"""

import signal
import sys
import time

_REFIRE_S = 0.05  # the timer fires again this often after the deadline, in case a timeout is swallowed


class GradingTimeout(BaseException):
    """Raised inside the grader when an answer's time budget runs out (a BaseException, so the
    ``except Exception`` blocks inside math-verify and sympy cannot swallow it)."""


class Deadline:
    """Raises GradingTimeout in the main thread once `seconds` have passed, and again every _REFIRE_S
    until disarmed: an exception raised while a finaliser (``__del__``, a weakref callback) happens to
    run is dropped (quietly: `_on_unraisable`), so a single one could be lost. Restores the handler,
    the unraisable hook and any outer timer it replaced."""

    def __init__(self, seconds: float) -> None:
        self.armed, self.restored, self.started = True, False, time.monotonic()
        # Timer first, handler second: an outer alarm due in between still reaches its own handler,
        # and ours cannot fire before its handler is in (seconds >= `math_check._MIN_TIMER_S`).
        self.previous_timer = signal.setitimer(signal.ITIMER_REAL, seconds, _REFIRE_S)
        self.previous_handler = signal.signal(signal.SIGALRM, self._on_alarm)
        # A timeout that lands in a finaliser is "ignored" by Python, which prints it with a traceback
        # on stderr: drop those quietly (the timer fires again where it counts), pass on the rest.
        self.previous_unraisable_hook = sys.unraisablehook
        sys.unraisablehook = self._on_unraisable

    def _on_unraisable(self, unraisable) -> None:
        if not isinstance(unraisable.exc_value, GradingTimeout):
            self.previous_unraisable_hook(unraisable)

    def _on_alarm(self, signum, frame) -> None:
        if self.armed:
            raise GradingTimeout

    def disarm(self) -> None:
        """Idempotent. A timeout can land on any bytecode until `armed` is False, so retry that."""
        while self.armed:
            try:
                self.armed = False
            except GradingTimeout:
                pass
        if self.restored:
            return
        self.restored = True
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.unraisablehook = self.previous_unraisable_hook
        signal.signal(signal.SIGALRM, self.previous_handler if self.previous_handler is not None else signal.SIG_DFL)
        delay, interval = self.previous_timer
        if delay > 0:
            signal.setitimer(signal.ITIMER_REAL, max(delay - (time.monotonic() - self.started), 1e-3), interval)
