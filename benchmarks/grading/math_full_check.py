"""Steps 2 to 7 of the math check: what a completion's answer must be, beyond the fast path, to be credited.

    full_verdict(answer, reference, problem)   # a Verdict in both modes, with no time limit of its own

An answer that is too long, or that the completion offers beside other answers of another value,
is refused; the rest is read as a careful reader reads it (`benchmarks.grading.math_normal`),
refused where the words around it or the question make it no answer to what is asked
(`benchmarks.grading.math_scope`, `benchmarks.grading.math_asked`), judged by base
(`benchmarks.grading.math_form`), refused in both modes as a non-answer
(`benchmarks.grading.math_nonanswer`), compared in value with math-verify
(`benchmarks.grading.math_values`), refused where it gives the problem back in another form, and
last held to the worked-out form strict mode demands (`benchmarks.grading.math_strict`). The
steps, in order, and the time limit they run under: `benchmarks.grading.math_check`.
"""

import re

from benchmarks.grading.math_asked import asked_refusal, asks_quantity, form_refusal, other_quantity
from benchmarks.grading.math_conventions import repeats_problem
from benchmarks.grading.math_extracted import Extracted
from benchmarks.grading.math_form import PROBLEM_CHARS, base_verdict, last_side, restates
from benchmarks.grading.math_nonanswer import (
    NUMBER_LITERAL,
    contains_expression,
    hedge,
    keeps_operations,
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
from benchmarks.grading.math_verdict import Verdict, fast_verdict

ANSWER_CHARS = 1_000  # the longest answer or reference handed to math-verify (the shipped ones: 53)

# A power of numbers with a long exponent, a tower of them, a binomial of huge numbers, the factorial
# of a four-digit number: their value is never evaluated (as
# PRM800K's grader guards sympy with `should_allow_eval`); it could take sympy minutes.
_TOO_LARGE = re.compile(r"\d\s*\^\s*\{?\s*\d{4,}|\^\s*\{[^{}]*\^|\\[dt]?binom\s*\{[^{}]*(?:\^|\d{5})|\d{4,}\s*!")


def _refused(answer, reason: str | None = None) -> Verdict:
    return Verdict(False, False, answer, reason)


def full_verdict(answer: Extracted, reference: str, problem: str | None) -> Verdict:
    """Steps 2 to 6 of `benchmarks.grading.math_check`'s module docstring, with no time limit of its own."""
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
    by_base = base_verdict(text, reference, asked_base(problem) if problem and "_" in text else None)
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
    if qualifier.startswith("subject:"):  # "The diameter is \\boxed{5}" where a quantity (the radius) is asked
        named = other_quantity(qualifier[8:], problem) and asks_quantity(problem)
        return "another quantity than asked" if named else None
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
    if (
        keeps_operations(judged, expressions)
        or contains_expression(judged, candidates)
        or substituted(judged, candidates)
    ):
        return True
    return keeps_structure(judged, last_side(reference), candidates)


_ASKING = re.compile(r"^(?:what|which|how|find|compute|calculate|evaluate|simplify|determine|express|write)\b", re.I)
_SENTENCE_BREAK = re.compile(r"(?<=[.?!])\s+")


# The base a problem asks the answer in: "in base $2$", "to base 8", "in binary" (the last one named).
_ASKED_BASE = re.compile(
    r"\b(?:in|to|into)\s+base[\s~-]*\$?\{?\s*(\d{1,2})(?!\d)|\b(?:in|to|into)\s+(binary|octal|hexadecimal)\b"
)
_BASE_NAMES = {"binary": 2, "octal": 8, "hexadecimal": 16}


def asked_base(problem: str) -> int | None:
    """The base `problem` asks the answer in, or None (a reference without a subscript is in it)."""
    found = list(_ASKED_BASE.finditer(problem[:PROBLEM_CHARS]))
    if not found:
        return None
    digits, name = found[-1].groups()
    return int(digits) if digits else _BASE_NAMES[name]


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
    if restates(text, reference, problem) or repeats_problem(text, problem):
        return "restates the problem"
    if _TOO_LARGE.search(text) and not _TOO_LARGE.search(reference):
        return "too large to evaluate"
    return None
