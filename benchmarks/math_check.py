"""Pure math answer checking: the answer rules, the integer fast path, math-verify, the main-thread deadline.

The public grader (`benchmarks.grading`) and its worker processes (`benchmarks.math_grading_worker`)
both import this module; it imports neither. Use the grader: it picks the in-process or the worker
path by thread and validates the batch.

    check_fast(completion, reference)         # verdict without sympy, or None
    check_unbounded(completion, reference, problem)   # fast path, else the full check with no time limit
    check_in_main_thread(completion, reference, timeout_s, problem)  # the same under a wall-clock budget

Each returns ``(correct, extracted)``: the answer as `benchmarks.math_answer.Extracted` (a str that
also says which rule found it and the text it was read from), or None when the completion gives
none; ``reference=None`` only extracts. Every function takes ``fallback`` ("statement" or "boxed")
and ``truncated`` (the completion was cut at its token limit), which decide what counts as an
answer (`benchmarks.math_answer`).

A completion's answer is correct when, in this order:
1. (fast) answer and reference are integers with the same digits, or the answer is written exactly
   as the reference (up to spaces);
2. neither is a numeral with a base subscript, or the answer is the reference's numeral in the
   reference's base (`benchmarks.math_form.base_verdict`);
3. it is not refused (`benchmarks.math_form.refusal`): it does not restate an expression of the
   problem, is not unevaluated where the reference is a value, leaves no arithmetic undone and is in
   the form the problem asks for (a common fraction, a decimal, simplest radical form);
4. math-verify finds it equal to the reference (numbers as numbers, order-free lists, intervals,
   tuples, matrices, ``\\text{}``, units and degrees normalised away); an inequality in one variable
   answers an interval (``x > 2`` for ``(2,\\infty)``, ``3 < \\lambda \\le 4`` for ``(3,4]``).

Inputs: a completion that is not a string is no answer, ``(False, None)``. A numeric reference
(``5``, ``0.5``) is read as ``str(reference)``; any other non-string reference, an empty one or one
longer than READ_CHARS matches nothing; a problem that is not a string is no problem. Nothing here
raises on odd input.

Bounds, so that every call ends within its budget whatever the input's size or shape:
- only the last READ_CHARS characters of a completion are read (the final answer is at the end),
  and only the first `math_form.PROBLEM_CHARS` of a problem;
- the boxes are found by one linear scan over brace tokens (no rescan per ``\\boxed{``), the answer
  statement in a short tail (`benchmarks.math_answer`);
- integers of any length are compared as digit strings, never through ``int()`` (which Python
  refuses past 4300 digits) or sympy;
- math-verify sees only the extracted answer, never one longer than ANSWER_CHARS.
math-verify's regexes are still super-linear and sympy will try to evaluate ``9^{9^{9^9}}``; both
run Python bytecode or C loops that check for signals (CPython's regex engine and big-integer
arithmetic do), so the interval timer of `check_in_main_thread` stops them, and steps 2 to 4 all
run under it.
"""

import decimal
import functools
import logging
import numbers
import re
import signal
import time

import sympy
from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
from sympy.core.relational import Equality, Relational, Unequality

from benchmarks.math_answer import FALLBACKS, Extracted, extract, last_box
from benchmarks.math_form import PROBLEM_CHARS, base_verdict, refusal

__all__ = [  # FALLBACKS and Extracted are `benchmarks.math_answer`'s, re-exported for the grader
    "ANSWER_CHARS",
    "FALLBACKS",
    "READ_CHARS",
    "Extracted",
    "GradingTimeout",
    "check_fast",
    "check_in_main_thread",
    "check_unbounded",
    "clip",
    "extracted_answer",
    "fast_verdict",
    "last_boxed_content",
    "problem_text",
    "reference_text",
]
READ_CHARS = 100_000  # the tail of a completion that is read at all
ANSWER_CHARS = 1_000  # the longest answer or reference handed to math-verify (the shipped ones: 53)
_REFIRE_S = 0.05  # the timer fires again this often after the deadline, in case a timeout is swallowed
_MIN_TIMER_S = 0.01  # less budget than this left after extraction: do not start math-verify

# Answers and references are both handed over boxed: the same parse on both sides.
_EXTRACTION = (LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig())
_INTEGER = re.compile(r"[+-]?\d+(?:\.0*)?")  # linear: no nested quantifiers

# math-verify warns on every timeout and once about the timeout we switch off on purpose.
for _name in ("math_verify", "latex2sympy2_extended"):
    logging.getLogger(_name).setLevel(logging.ERROR)


class GradingTimeout(BaseException):
    """Raised inside the grader when an answer's time budget runs out (a BaseException, so the
    ``except Exception`` blocks inside math-verify and sympy cannot swallow it)."""


def last_boxed_content(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` (or ``\\fbox{...}``) with balanced braces; linear time."""
    box = last_box(text)
    return None if box is None else text[box[1] : box[2]].strip()


def clip(completion) -> str | None:
    """The part of a completion that is read: its last READ_CHARS characters; None for a non-string."""
    return completion[-READ_CHARS:] if isinstance(completion, str) else None


def problem_text(problem) -> str | None:
    """The part of a problem that is read: its first PROBLEM_CHARS characters; None for a non-string."""
    return problem[:PROBLEM_CHARS] if isinstance(problem, str) and problem.strip() else None


def extracted_answer(completion, fallback: str = "statement", truncated: bool = False) -> Extracted | None:
    """The answer of the read part of a completion (`benchmarks.math_answer`); None for a non-string."""
    text = clip(completion)
    return None if text is None else extract(text, fallback, bool(truncated))


def reference_text(reference) -> str | None:
    """The reference as text: None stays None (extract only), numbers become str(), a reference that
    cannot be read or is too long to match any answer becomes "" (matches nothing)."""
    if reference is None or isinstance(reference, str):
        text = reference
    elif isinstance(reference, bool):  # True / False are not answers (bool is a Number in Python)
        text = ""
    elif isinstance(reference, numbers.Rational):  # exact digits at any length (str() refuses past 4300)
        numerator, denominator = (str(decimal.Decimal(part)) for part in (reference.numerator, reference.denominator))
        text = numerator if denominator == "1" else f"{numerator}/{denominator}"
    elif isinstance(reference, numbers.Number):
        try:
            text = str(reference)
        except ValueError:  # another number type too long to write out
            text = ""
    else:
        text = ""
    return "" if text is not None and len(text) > READ_CHARS else text


def _integer_digits(text: str) -> str | None:
    """'-0025.00' -> '-25', '-0' -> '0'; None when `text` is not an integer. Linear, no int()."""
    if text.isascii() and text.isdigit():  # the common case, without a regex
        return text.lstrip("0") or "0"
    if not _INTEGER.fullmatch(text):
        return None
    digits = text.lstrip("+-").split(".")[0].lstrip("0") or "0"
    return "-" + digits if text[0] == "-" and digits != "0" else digits


def fast_verdict(answer: Extracted | None, reference: str | None) -> tuple[bool, Extracted | None] | None:
    """Integer answer vs integer reference as digit strings, or an answer identical to the reference
    (up to spaces); no answer, or no reference, is False. None when the full check is needed."""
    if answer is None or reference is None:
        return False, answer
    reference = reference.strip()
    candidate_digits = _integer_digits(answer.strip().rstrip(".").strip())
    reference_digits = _integer_digits(reference)
    if candidate_digits is not None and reference_digits is not None:
        return candidate_digits == reference_digits, answer
    if reference and (answer == reference or "".join(answer.split()) == "".join(reference.split())):
        return True, answer
    return None


@functools.lru_cache(maxsize=8192)
def _parse_reference(reference: str) -> tuple:
    return tuple(parse("\\boxed{" + reference + "}", _EXTRACTION, parsing_timeout=None))


def _inequality_set(value):
    """The interval an inequality in one variable describes (``x > 2`` -> (2, oo)), a union for
    "x < -1 or x > 2" (parsed as a set of inequalities); None for anything else."""
    if isinstance(value, sympy.FiniteSet) and len(value) > 1:
        parts = [_inequality_set(item) for item in value.args]
        return None if any(part is None for part in parts) else sympy.Union(*parts)
    if not isinstance(value, Relational | sympy.And | sympy.Or) or len(value.free_symbols) != 1:
        return None
    relations = value.atoms(Relational) if not isinstance(value, Relational) else {value}
    if not relations or any(isinstance(r, Equality | Unequality) for r in relations):
        return None
    return value.as_set()


def _with_intervals(predicted: list, gold: tuple) -> list:
    """`predicted` with inequalities read as intervals, when the reference is an interval or a union."""
    if not any(isinstance(g, sympy.Set) and not isinstance(g, sympy.FiniteSet) for g in gold):
        return predicted
    converted = [_inequality_set(value) if isinstance(value, sympy.Basic) else None for value in predicted]
    return [value if new is None else new for value, new in zip(predicted, converted)]


def _full_verdict(answer: Extracted, reference: str, problem: str | None) -> bool:
    """Steps 2 to 4 of the module docstring, with no time limit of its own."""
    if len(answer) > ANSWER_CHARS or not reference.strip() or len(reference) > ANSWER_CHARS:
        return False  # no real answer is this long; sympy could take ages on it
    by_base = base_verdict(answer, reference)
    if by_base is not None:
        return by_base
    if refusal(answer, reference, problem) is not None:
        return False
    gold = _parse_reference(reference)
    predicted = parse("\\boxed{" + answer + "}", _EXTRACTION, parsing_timeout=None)
    if not gold or not predicted:
        return False
    return verify(list(gold), _with_intervals(predicted, gold), timeout_seconds=None)


def check_fast(completion, reference, fallback: str = "statement", truncated: bool = False):
    """The verdict without sympy (see `fast_verdict`), or None when the full check is needed."""
    return fast_verdict(extracted_answer(completion, fallback, truncated), reference_text(reference))


def check_unbounded(
    completion, reference, problem=None, fallback: str = "statement", truncated: bool = False
) -> tuple[bool, Extracted | None]:
    """(correct, extracted answer) with no time limit; `reference=None` only extracts."""
    answer, reference = extracted_answer(completion, fallback, truncated), reference_text(reference)
    fast = fast_verdict(answer, reference)
    if fast is not None:
        return fast
    return _full_verdict(answer, reference, problem_text(problem)), answer


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


def check_in_main_thread(
    completion, reference, timeout_s: float, problem=None, fallback: str = "statement", truncated: bool = False
) -> tuple[bool, Extracted | None]:
    """`check_unbounded` within `timeout_s` of wall time, extraction included; a timeout or a grader
    crash on garbage input scores False. Only callable from the main thread (signals)."""
    started = time.monotonic()
    text = completion[-READ_CHARS:] if isinstance(completion, str) else None  # `clip`, inlined: the hot path
    answer = None if text is None else extract(text, fallback, truncated)  # bounded by construction
    reference = reference_text(reference)
    fast = fast_verdict(answer, reference)
    if fast is not None:
        return fast
    remaining = timeout_s - (time.monotonic() - started)
    if remaining < _MIN_TIMER_S:  # the budget is spent (and a shorter timer could fire before its handler is in)
        return False, answer
    deadline = _Deadline(remaining)
    try:
        try:
            return _full_verdict(answer, reference, problem_text(problem)), answer
        finally:
            deadline.disarm()
    except GradingTimeout:  # also one that landed before the `finally` could disarm
        deadline.disarm()
        return False, answer
    except Exception:
        return False, answer
