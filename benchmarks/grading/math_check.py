"""Pure math answer checking: the answer rules, the integer fast path, math-verify, the main-thread deadline.

The public grader (`benchmarks.grading.math_grader`) and its worker processes (`benchmarks.grading.grading_worker`)
both import this module; it imports neither. Use the grader: it picks the in-process or the worker
path by thread and validates the batch.

    check_fast(completion, reference)         # verdict without sympy, or None
    check_unbounded(completion, reference, problem)   # fast path, else the full check with no time limit
    check_in_main_thread(completion, reference, timeout_s, problem)  # the same under a wall-clock budget

Each returns a `Verdict`: ``lenient`` and ``strict`` (the two grading modes), the answer as
`benchmarks.grading.math_answer.Extracted` (a str that also says which rule found it and the text it was
read from; None when the completion gives none, hides its box or retracts it) and the ``reason`` it
was refused; ``reference=None`` only extracts. Every function takes ``fallback`` ("statement" or
"boxed") and ``truncated`` (the completion was cut at its token limit), which decide what counts as
an answer (`benchmarks.grading.math_answer`, `benchmarks.grading.math_hidden`).

A completion's answer is judged in this order:
1. (fast) answer and reference are integers: right in both modes when the digits are the same;
   an answer written exactly as the reference (up to spaces) is right in both modes;
2. it is rewritten as a careful reader reads it (`benchmarks.grading.math_normal`: thousands separators,
   bold, spacing, currency, a multiple-choice letter and its value, ``\\pm`` for two roots), then
   step 1 again;
3. a numeral with a base subscript must be the reference's numeral in the reference's base
   (`benchmarks.grading.math_form.base_verdict`), in both modes;
4. a non-answer is refused in both modes (`benchmarks.grading.math_nonanswer`): numbers side by side, a
   hedge, a false equation, the problem's expression given back token for token, a power too large
   to evaluate;
5. math-verify must find it equal to the reference (`benchmarks.grading.math_values`; numbers as numbers,
   order-free lists, intervals, tuples, matrices, ``\text{}``, units and degrees normalised away; an
   inequality in one variable answers an interval); else wrong in both modes;
6. an answer equal to the reference that is the problem's expression in another form (by value and
   form) is refused in both modes; what remains is right in the lenient mode;
7. strict mode also demands the worked-out form and the form the question asks for
   (`benchmarks.grading.math_strict`).

Inputs: a completion that is not a string is no answer, ``(False, None)``. A numeric reference
(``5``, ``0.5``) is read as ``str(reference)``; any other non-string reference, an empty one or one
longer than READ_CHARS matches nothing; a problem that is not a string is no problem. Nothing here
raises on odd input.

Bounds, so that every call ends within its budget whatever the input's size or shape:
- only the last READ_CHARS characters of a completion are read (the final answer is at the end),
  and only the first `math_form.PROBLEM_CHARS` of a problem;
- the boxes are found by one linear scan over brace tokens (no rescan per ``\\boxed{``), the answer
  statement in a short tail (`benchmarks.grading.math_answer`);
- integers of any length are compared as digit strings, never through ``int()`` (which Python
  refuses past 4300 digits) or sympy;
- math-verify sees only the extracted answer, never one longer than ANSWER_CHARS.
math-verify's regexes are still super-linear and sympy will try to evaluate ``9^{9^{9^9}}``; both
run Python bytecode or C loops that check for signals (CPython's regex engine and big-integer
arithmetic do), so the interval timer of `check_in_main_thread` stops them, and steps 2 to 7 all
run under it.
"""

import decimal
import functools
import logging
import numbers
import re
import signal
import sys
import time
from typing import NamedTuple

from benchmarks.grading.math_answer import FALLBACKS, Extracted, extract, last_box, opens_with_address
from benchmarks.grading.math_asked import asked_refusal, form_refusal, other_quantity
from benchmarks.grading.math_form import PROBLEM_CHARS, base_verdict, last_side, restates
from benchmarks.grading.math_nonanswer import (
    NUMBER_LITERAL,
    contains_expression,
    hedge,
    keeps_structure,
    numeric_sides,
    restates_by_form,
    side_by_side,
    substituted,
)
from benchmarks.grading.math_normal import normalized
from benchmarks.grading.math_scope import asks_for
from benchmarks.grading.math_strict import left_unevaluated, strict_refusal
from benchmarks.grading.math_values import equal_in_value, equal_values, problem_candidates, problem_expressions

__all__ = [  # FALLBACKS and Extracted are `benchmarks.grading.math_answer`'s, re-exported for the grader
    "ANSWER_CHARS",
    "FALLBACKS",
    "READ_CHARS",
    "Extracted",
    "GradingTimeout",
    "Verdict",
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

# A power of numbers with a long exponent, a tower of them, a binomial of huge numbers, the factorial
# of a four-digit number: their value is never evaluated (as
# PRM800K's grader guards sympy with `should_allow_eval`); it could take sympy minutes.
_TOO_LARGE = re.compile(r"\d\s*\^\s*\{?\s*\d{4,}|\^\s*\{[^{}]*\^|\\[dt]?binom\s*\{[^{}]*(?:\^|\d{5})|\d{4,}\s*!")
_INTEGER = re.compile(r"[+-]?\d+(?:\.0*)?", re.ASCII)  # linear; ASCII digits only (others: `math_glyphs`)

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
    """The answer of the read part of a completion (`benchmarks.grading.math_answer`); None for a non-string."""
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


class Verdict(NamedTuple):
    """A completion graded in both modes: `lenient` (any equal value that is an answer), `strict`
    (also worked out, in the form asked for; strict credit implies lenient credit), the answer
    `extracted` (None: the completion gives none) and the `reason` it was refused in strict or both
    modes (None when strict credits it, or when it is simply wrong or missing)."""

    lenient: bool
    strict: bool
    extracted: Extracted | None
    reason: str | None


_new_verdict = tuple.__new__  # a Verdict without NamedTuple's Python-level __new__ (the hot path)


def fast_verdict(answer: str | None, reference: str | None) -> Verdict | None:
    """Integer answer vs integer reference as digit strings, or an answer identical to the reference
    (up to spaces); no answer, or no reference, is False. None when the full check is needed."""
    if answer is None or reference is None:
        return _new_verdict(Verdict, (False, False, answer, None))
    if getattr(answer, "pending", False):
        return None  # other committed answers or qualifying words: the full check reads them (`_full_verdict`)
    reference, reference_digits, reference_spaceless = _reference_forms(reference)
    if reference_digits is not None:
        candidate_digits = _integer_digits(answer.strip().rstrip(".").strip())
        if candidate_digits is not None:
            same = candidate_digits == reference_digits
            return _new_verdict(Verdict, (same, same, answer, None))
    if reference and (answer == reference or "".join(answer.split()) == reference_spaceless):
        return _new_verdict(Verdict, (True, True, answer, None))
    return None


@functools.lru_cache(maxsize=4096)
def _reference_forms(reference: str) -> tuple[str, str | None, str]:
    """A reference as `fast_verdict` compares it: stripped, its integer digits (None: no integer) and
    without spaces. Pure, and a batch grades each reference many times (one per sample)."""
    reference = reference.strip()
    return reference, _integer_digits(reference), "".join(reference.split())


_REFUSED_ADDRESS = Verdict(False, False, None, None)  # a completion that opens by speaking to the grader


def _refused(answer, reason: str | None = None) -> Verdict:
    return Verdict(False, False, answer, reason)


def _full_verdict(answer: Extracted, reference: str, problem: str | None) -> Verdict:
    """Steps 2 to 6 of the module docstring, with no time limit of its own."""
    if len(answer) > ANSWER_CHARS or not reference.strip() or len(reference) > ANSWER_CHARS:
        return _refused(answer)  # no real answer is this long; sympy could take ages on it
    if answer.others and not all(_same_answer(other, answer, reference, problem) for other in answer.others):
        return _refused(answer, "several answers")
    text = normalized(answer, reference, problem)
    for qualifier in answer.qualifiers:
        reason = _qualifier_refusal(qualifier, text, reference, problem)
        if reason is not None:
            return _refused(answer, reason)
    asked = asked_refusal(text, reference, problem, answer)
    if asked is not None:
        return _refused(answer, asked)
    if text != answer:
        same = fast_verdict(text, reference)
        if same is not None:
            return Verdict(same.lenient, same.lenient, answer, None)
    by_base = base_verdict(text, reference)
    if by_base is not None:
        return Verdict(by_base, by_base, answer, None)
    reason = _non_answer(text, reference, problem)
    if reason is not None:
        return _refused(answer, reason)
    judged = last_side(text) if numeric_sides(text) else text
    if not equal_in_value(judged, reference):
        return _refused(answer)
    if problem and _restated(text, reference, problem):
        return _refused(answer, "restates the problem")
    reason = strict_refusal(text, reference, problem) or form_refusal(text, problem)
    return Verdict(True, reason is None, answer, reason)


def _qualifier_refusal(qualifier: str, text: str, reference: str, problem: str | None) -> str | None:
    """Why the words around the answer make it no answer to this question (`benchmarks.grading.math_scope`):
    a bound or an estimate the question does not ask for, a unit after the box that is not the one asked, or
    a name of another quantity than asked before the value ("Area = 16")."""
    if qualifier.startswith("unit:"):
        reason = asked_refusal(f"{text} \\text{{ {qualifier[5:]}}}", reference, problem)
        return reason if reason == "another unit than asked" else None
    if qualifier.startswith("named:"):  # "Area = 16": the value of another quantity than asked
        return "another quantity than asked" if other_quantity(qualifier[6:], problem) else None
    if asks_for(qualifier, problem):
        return None
    return "a bound, not the value" if qualifier == "bound" else "an estimate, not the value"


def _same_answer(other: str, answer: str, reference: str, problem: str | None) -> bool:
    """Another committed answer that a reader takes for the same answer: equal in value, sides read."""
    if len(other) > ANSWER_CHARS:
        return False
    other, answer = (normalized(text, reference, problem) for text in (other, answer))
    return equal_values(last_side(other), last_side(answer))


def _restated(text: str, reference: str, problem: str) -> bool:
    """The answer, equal to the reference, is the question given back (step 6): one of the problem's
    expressions that equal the reference in another form, or partly worked out (arithmetic or an
    operation left undone), or an unevaluated answer that contains one of the problem's expressions
    ("the product of $5+\\sqrt3$ and its conjugate" answered ``(5+\\sqrt3)(5-\\sqrt3)``) or is one
    with numbers put in for its variables ("$a^2 + b$ if $a = 4$, $b = 7$" answered ``4^2 + 7``)."""
    expressions = problem_expressions(problem, reference)
    judged = last_side(text)
    if restates_by_form(judged, last_side(reference), expressions):
        return True
    if not left_unevaluated(judged, reference):
        return False
    candidates = _asked_candidates(problem)
    if expressions or contains_expression(judged, candidates) or substituted(judged, candidates):
        return True
    return keeps_structure(judged, last_side(reference), candidates)


_ASKING = re.compile(r"^(?:what|which|how|find|compute|calculate|evaluate|simplify|determine|express|write)\b", re.I)
_SENTENCE_BREAK = re.compile(r"(?<=[.?!])\s+")


def _asked_candidates(problem: str) -> tuple[str, ...]:
    """The problem's expressions that an answer may give back: a number it gives (``\\frac{2}{3}``) only
    when the asking sentence holds it ("What is $\\frac23$ of $\\frac9{10}$?"), for numbers the story of
    a word problem gives are the solver's to combine ("She makes $\\frac23$ of it. How much ...?")."""
    candidates = problem_candidates(problem)
    if not any(NUMBER_LITERAL.fullmatch(candidate) or _given(candidate) for candidate in candidates):
        return candidates
    sentences = _SENTENCE_BREAK.split(problem)
    asking = " ".join(sentence for sentence in sentences if sentence.endswith("?") or _ASKING.match(sentence))
    # A constant the story gives ("has area $\\frac{3\\sqrt3}{4}$. Find the altitude.") is data too, where a
    # question sentence of its own follows it: the answer built from it is worked out, not given back.
    story = " ".join(sentence for sentence in sentences if sentence not in asking) if asking else ""
    return tuple(
        c
        for c in candidates
        if not (NUMBER_LITERAL.fullmatch(c) and c not in asking) and not (_given(c) and c in story and c not in asking)
    )


def _given(candidate: str) -> bool:
    """Whether `candidate` is a constant (numbers and commands, no variable), such as ``2\\sqrt{5}``."""
    return re.search(r"[A-Za-z]", re.sub(r"\\[A-Za-z]+", "", candidate)) is None


def _non_answer(text: str, reference: str, problem: str | None) -> str | None:
    """Why `text` is no answer in any mode (`benchmarks.grading.math_nonanswer`), else None."""
    if side_by_side(text, reference):
        return "numbers side by side"
    reason = hedge(text, reference)
    if reason is not None:
        return reason
    sides = numeric_sides(text)
    if sides is not None and not all(equal_values(side, sides[-1]) for side in sides[:-1]):
        return "false equation"
    if restates(text, reference, problem):
        return "restates the problem"
    if _TOO_LARGE.search(text) and not _TOO_LARGE.search(reference):
        return "too large to evaluate"
    return None


def check_fast(completion, reference, fallback: str = "statement", truncated: bool = False):
    """The verdict without sympy (see `fast_verdict`), or None when the full check is needed."""
    return fast_verdict(extracted_answer(completion, fallback, truncated), reference_text(reference))


def check_unbounded(
    completion, reference, problem=None, fallback: str = "statement", truncated: bool = False
) -> Verdict:
    """The `Verdict` with no time limit; `reference=None` only extracts."""
    answer, reference = extracted_answer(completion, fallback, truncated), reference_text(reference)
    fast = fast_verdict(answer, reference)
    if fast is not None:
        return fast
    return _full_verdict(answer, reference, problem_text(problem))


class _Deadline:
    """Raises GradingTimeout in the main thread once `seconds` have passed, and again every _REFIRE_S
    until disarmed: an exception raised while a finaliser (``__del__``, a weakref callback) happens to
    run is dropped (quietly: `_on_unraisable`), so a single one could be lost. Restores the handler,
    the unraisable hook and any outer timer it replaced."""

    def __init__(self, seconds: float) -> None:
        self.armed, self.restored, self.started = True, False, time.monotonic()
        # Timer first, handler second: an outer alarm due in between still reaches its own handler,
        # and ours cannot fire before its handler is in (seconds >= _MIN_TIMER_S).
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


def check_in_main_thread(
    completion, reference, timeout_s: float, problem=None, fallback: str = "statement", truncated: bool = False
) -> Verdict:
    """`check_unbounded` within `timeout_s` of wall time, extraction included; a timeout or a grader
    crash on garbage input scores False in both modes. Only callable from the main thread (signals)."""
    started = time.monotonic()
    text = completion[-READ_CHARS:] if isinstance(completion, str) else None  # `clip`, inlined: the hot path
    # Bounded by construction; the head is read only for an answer that would be credited (below).
    answer = None if text is None else extract(text, fallback, truncated, read_head=False)
    reference = reference_text(reference)
    fast = fast_verdict(answer, reference)
    if fast is not None:
        return _REFUSED_ADDRESS if fast[0] and opens_with_address(text) else fast
    if answer is not None and opens_with_address(text):
        return _REFUSED_ADDRESS
    remaining = timeout_s - (time.monotonic() - started)
    if remaining < _MIN_TIMER_S:  # the budget is spent (and a shorter timer could fire before its handler is in)
        return Verdict(False, False, answer, "timed out")
    deadline = _Deadline(remaining)
    try:
        try:
            return _full_verdict(answer, reference, problem_text(problem))
        finally:
            deadline.disarm()
    except GradingTimeout:  # also one that landed before the `finally` could disarm
        deadline.disarm()
        return Verdict(False, False, answer, "timed out")
    except Exception:
        return Verdict(False, False, answer, "grader error")
