"""Pure math answer checking: the answer rules, the integer fast path, math-verify, the main-thread deadline.

The public grader (`benchmarks.grading.math_grader`) and its worker processes (`benchmarks.grading.grading_worker`)
both import this module; it imports neither. Use the grader: it picks the in-process or the worker
path by thread and validates the batch.

    check_fast(completion, reference)         # verdict without sympy, or None
    check_unbounded(completion, reference, problem)   # fast path, else the full check with no time limit
    check_in_main_thread(completion, reference, timeout_s, problem)  # the same under a wall-clock budget

Each returns a `Verdict`: ``lenient`` and ``strict`` (the two grading modes), the answer as
`benchmarks.grading.math_extracted.Extracted` (a str that also says which rule found it and the text it was
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
Step 1 is `benchmarks.grading.math_verdict.fast_verdict`, steps 2 to 7
`benchmarks.grading.math_full_check.full_verdict`; this module reads the inputs and runs them in order.

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
arithmetic do), so the interval timer of `check_in_main_thread` (`benchmarks.grading.math_deadline`)
stops them, and steps 2 to 7 all run under it.
"""

import decimal
import logging
import numbers
import time

from benchmarks.grading.math_answer import FALLBACKS, extract, opens_with_address
from benchmarks.grading.math_boxes import last_box
from benchmarks.grading.math_deadline import Deadline, GradingTimeout
from benchmarks.grading.math_extracted import Extracted
from benchmarks.grading.math_form import PROBLEM_CHARS
from benchmarks.grading.math_full_check import ANSWER_CHARS, full_verdict
from benchmarks.grading.math_verdict import Verdict, fast_verdict

__all__ = [  # the checker's interface: the grader and its workers import these from here only
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
_MIN_TIMER_S = 0.01  # less budget than this left after extraction: do not start math-verify

# math-verify warns on every timeout and once about the timeout we switch off on purpose.
for _name in ("math_verify", "latex2sympy2_extended"):
    logging.getLogger(_name).setLevel(logging.ERROR)


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


_REFUSED_ADDRESS = Verdict(False, False, None, None)  # a completion that opens by speaking to the grader


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
    return full_verdict(answer, reference, problem_text(problem))


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
    deadline = Deadline(remaining)
    try:
        try:
            return full_verdict(answer, reference, problem_text(problem))
        finally:
            deadline.disarm()
    except GradingTimeout:  # also one that landed before the `finally` could disarm
        deadline.disarm()
        return Verdict(False, False, answer, "timed out")
    except Exception:
        return Verdict(False, False, answer, "grader error")
