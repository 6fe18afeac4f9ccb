"""Pure math answer checking: answer extraction, the integer fast path, math-verify, the main-thread deadline.

The public grader (`benchmarks.grading`) and its worker processes (`benchmarks.math_grading_worker`)
both import this module; it imports neither. Use the grader: it picks the in-process or the worker
path by thread and validates the batch.

    check_fast(completion, reference)         # verdict without sympy, or None
    check_unbounded(completion, reference)    # fast path, else math-verify with no time limit
    check_in_main_thread(completion, reference, timeout_s)  # the same under a wall-clock budget

Each returns ``(correct, extracted answer)``; ``reference=None`` only extracts.

Inputs: a completion that is not a string is no answer, ``(False, None)``. A numeric reference
(``5``, ``0.5``) is read as ``str(reference)``; any other non-string reference, an empty one or one
longer than READ_CHARS matches nothing. Nothing here raises on odd input.

Bounds, so that every call ends within its budget whatever the input's size or shape:
- only the last READ_CHARS characters of a completion are read (the final answer is at the end);
- the boxed answer is found by one linear scan over brace tokens (no rescan per ``\\boxed{``);
- integers of any length are compared as digit strings, never through ``int()`` (which Python
  refuses past 4300 digits) or sympy;
- math-verify sees a window of at most ~1.4 KB around the last box, or the last PARSE_CHARS
  characters when there is none, and no answer or reference longer than ANSWER_CHARS.
math-verify's regexes are still super-linear in that window and sympy will try to evaluate
``9^{9^{9^9}}``; both run Python bytecode or C loops that check for signals (CPython's regex
engine and big-integer arithmetic do), so the interval timer of `check_in_main_thread` stops them.
"""

import functools
import logging
import numbers
import re
import signal
import time
from typing import NamedTuple

from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

READ_CHARS = 100_000  # the tail of a completion that is read at all
ANSWER_CHARS = 1_000  # the longest answer or reference handed to math-verify (the shipped ones: 53)
CONTEXT_CHARS = 200  # text kept either side of the last box: "$...$", "\\boxed{1} and \\boxed{2}"
PARSE_CHARS = 4_000  # the tail handed to math-verify when there is no box
_REFIRE_S = 0.05  # the timer fires again this often after the deadline, in case a timeout is swallowed
_MIN_TIMER_S = 0.01  # less budget than this left after extraction: do not start math-verify

# Boxed answers first (priority 0), then any LaTeX or plain expression, rightmost first.
_EXTRACTION = (LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig())
_INTEGER = re.compile(r"[+-]?\d+(?:\.0*)?")  # linear: no nested quantifiers
_BOX_OPEN = re.compile(r"\\(?:boxed|fbox)\s*\{")
_BRACE_TOKEN = re.compile(r"\{|\}|\\(?:boxed|fbox)\s*\{")  # literal first characters: a fast C scan

# math-verify warns on every timeout and once about the timeout we switch off on purpose.
for _name in ("math_verify", "latex2sympy2_extended"):
    logging.getLogger(_name).setLevel(logging.ERROR)


class GradingTimeout(BaseException):
    """Raised inside the grader when an answer's time budget runs out (a BaseException, so the
    ``except Exception`` blocks inside math-verify and sympy cannot swallow it)."""


class _Box(NamedTuple):
    start: int  # where "\boxed" begins
    content: slice  # what lies between its braces


class _Answer(NamedTuple):
    text: str  # the part of the completion that is read
    box: _Box | None  # its last closed box
    boxed: str | None  # that box's content, stripped


def _last_box(text: str) -> _Box | None:
    """The closed box that starts last, in one pass from the first box on (a box's closing brace
    depends only on the text after it): a stack holds each open brace, with where its box began when
    it is a box's own brace; a closing brace pops its match (stray ones are ignored)."""
    first = _BOX_OPEN.search(text)
    if first is None:
        return None
    open_braces: list[tuple[int, int]] = []  # (box start or -1, index after the brace)
    last = None
    for token in _BRACE_TOKEN.finditer(text, first.start()):
        if token.end() - token.start() > 1:  # "\boxed{"
            open_braces.append((token.start(), token.end()))
        elif text[token.start()] == "{":
            open_braces.append((-1, token.end()))
        elif open_braces:
            box_start, content_start = open_braces.pop()
            if box_start >= 0 and (last is None or box_start > last.start):
                last = _Box(box_start, slice(content_start, token.start()))
    return last


def last_boxed_content(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` (or ``\\fbox{...}``) with balanced braces; linear time."""
    box = _last_box(text)
    return None if box is None else text[box.content].strip()


def clip(completion) -> str | None:
    """The part of a completion that is read: its last READ_CHARS characters; None for a non-string."""
    return completion[-READ_CHARS:] if isinstance(completion, str) else None


def _read(completion) -> _Answer | None:
    """The read part of a completion and its last box; None for a non-string."""
    text = clip(completion)
    if text is None:
        return None
    box = _last_box(text)
    return _Answer(text, box, None if box is None else text[box.content].strip())


def boxed_answer(completion) -> str | None:
    """The last box's content in the read part of a completion; None for a non-string or no box."""
    answer = _read(completion)
    return None if answer is None else answer.boxed


def reference_text(reference) -> str | None:
    """The reference as text: None stays None (extract only), numbers become str(), a reference that
    cannot be read or is too long to match any answer becomes "" (matches nothing)."""
    if reference is None or isinstance(reference, str):
        text = reference
    elif isinstance(reference, numbers.Number):
        text = str(reference)
    else:
        text = ""
    return "" if text is not None and len(text) > READ_CHARS else text


def _integer_digits(text: str) -> str | None:
    """'-0025.00' -> '-25', '-0' -> '0'; None when `text` is not an integer. Linear, no int()."""
    if not _INTEGER.fullmatch(text):
        return None
    digits = text.lstrip("+-").split(".")[0].lstrip("0") or "0"
    return "-" + digits if text[0] == "-" and digits != "0" else digits


def _fast_verdict(answer: _Answer, reference: str | None) -> tuple[bool, str] | None:
    """Integer answer vs integer reference as digit strings, or a boxed answer identical to the
    reference (up to spaces); None when sympy is needed."""
    candidate = (answer.boxed if answer.boxed is not None else answer.text).strip().rstrip(".").strip()
    candidate_digits = _integer_digits(candidate)
    if reference is None:
        return (False, candidate) if candidate_digits is not None else None
    reference = reference.strip()
    reference_digits = _integer_digits(reference)
    if candidate_digits is not None and reference_digits is not None:
        return candidate_digits == reference_digits, candidate
    if reference and answer.boxed is not None and "".join(answer.boxed.split()) == "".join(reference.split()):
        return True, answer.boxed
    return None


@functools.lru_cache(maxsize=8192)
def _parse_reference(reference: str) -> tuple:
    return tuple(parse("\\boxed{" + reference + "}", _EXTRACTION, parsing_timeout=None))


def _math_verify_verdict(answer: _Answer, reference: str | None) -> tuple[bool, str | None]:
    """math-verify on a bounded window of the completion, with no time limit of its own."""
    if answer.boxed is not None and len(answer.boxed) > ANSWER_CHARS:
        return False, answer.boxed  # no real answer is this long; sympy could take ages on it
    if answer.box is None:
        window = answer.text[-PARSE_CHARS:]
    else:
        window = answer.text[max(0, answer.box.start - CONTEXT_CHARS) : answer.box.content.stop + CONTEXT_CHARS]
    predicted = parse(window, _EXTRACTION, parsing_timeout=None)
    extracted = answer.boxed
    if extracted is None and predicted and isinstance(predicted[-1], str):
        extracted = predicted[-1]
    if not reference or not reference.strip() or len(reference) > ANSWER_CHARS or not predicted:
        return False, extracted
    return verify(list(_parse_reference(reference)), predicted, timeout_seconds=None), extracted


def check_fast(completion, reference) -> tuple[bool, str | None] | None:
    """The verdict without sympy (see `_fast_verdict`), or None when math-verify is needed."""
    answer = _read(completion)
    if answer is None:
        return False, None
    return _fast_verdict(answer, reference_text(reference))


def check_unbounded(completion, reference) -> tuple[bool, str | None]:
    """(correct, extracted answer) with no time limit; `reference=None` only extracts."""
    answer, reference = _read(completion), reference_text(reference)
    if answer is None:
        return False, None
    return _fast_verdict(answer, reference) or _math_verify_verdict(answer, reference)


class _Deadline:
    """Raises GradingTimeout in the main thread once `seconds` have passed, and again every _REFIRE_S
    until disarmed: an exception raised while a finaliser (``__del__``, a weakref callback) happens to
    run is printed and dropped, so a single one could be lost. Restores the handler and any outer
    timer it replaced."""

    def __init__(self, seconds: float) -> None:
        self.armed, self.restored, self.started = True, False, time.monotonic()
        # Timer first, handler second: an outer alarm due in between still reaches its own handler,
        # and ours cannot fire before its handler is in (seconds >= _MIN_TIMER_S).
        self.previous_timer = signal.setitimer(signal.ITIMER_REAL, seconds, _REFIRE_S)
        self.previous_handler = signal.signal(signal.SIGALRM, self._on_alarm)

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
        signal.signal(signal.SIGALRM, self.previous_handler if self.previous_handler is not None else signal.SIG_DFL)
        delay, interval = self.previous_timer
        if delay > 0:
            signal.setitimer(signal.ITIMER_REAL, max(delay - (time.monotonic() - self.started), 1e-3), interval)


def check_in_main_thread(completion, reference, timeout_s: float) -> tuple[bool, str | None]:
    """`check_unbounded` within `timeout_s` of wall time, extraction included; a timeout or a grader
    crash on garbage input scores False. Only callable from the main thread (signals)."""
    started = time.monotonic()
    answer, reference = _read(completion), reference_text(reference)  # bounded by construction
    if answer is None:
        return False, None
    fast = _fast_verdict(answer, reference)
    if fast is not None:
        return fast
    remaining = timeout_s - (time.monotonic() - started)
    if remaining < _MIN_TIMER_S:  # the budget is spent (and a shorter timer could fire before its handler is in)
        return False, answer.boxed
    deadline = _Deadline(remaining)
    try:
        try:
            return _math_verify_verdict(answer, reference)
        finally:
            deadline.disarm()
    except GradingTimeout:  # also one that landed before the `finally` could disarm
        deadline.disarm()
        return False, answer.boxed
    except Exception:
        return False, answer.boxed
