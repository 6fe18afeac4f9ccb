"""Strict grading: the worked-out form a careful MATH grader demands of an answer equal in value.

    strict_refusal("\\frac{24}{2}", "12")                             # "unevaluated (the reference is a value)"
    strict_refusal("1.414214", "\\sqrt2")                             # "a decimal for an exact value"
    strict_refusal("\\sqrt{8}", "2\\sqrt2")                           # "radical not simplified"
    strict_refusal("\\frac{3}{\\sqrt3}", "\\sqrt3")                   # "radical in the denominator"
    strict_refusal("78.54", "25\\pi", "... in terms of $\\pi$.")      # "not in terms of pi"
    strict_refusal("12", "12")                                        # None: worked out

Only asked of answers that lenient grading credits (equal in value, no non-answer). On top of
`benchmarks.grading.math_form.refusal` (values left unevaluated where the reference is a value, arithmetic on
two numbers left undone, a fraction not in lowest terms, "common fraction", "as a decimal",
"simplest radical form"), strict grading refuses what the reference does not have itself:
- an operation left for the reader: ``\\binom``, ``!``, ``\\log``, a trigonometric function,
  ``\\sum``, ``\\prod``, ``\\int``, ``\\lim``, a derivative ``\\frac{d}{dx}``;
- a decimal where the reference is exact (no decimal point in it), unless the problem asks for a
  decimal or for rounding;
- a square root of an integer with a square factor (``\\sqrt{8}``, ``\\sqrt{144}``), a square root in a
  denominator or a fraction under a root (``\\sqrt{\\frac{2}{3}}``), a fraction of integers not in lowest
  terms, a mixed number;
- the form the problem asks for: "in terms of $\\pi$" keeps ``\\pi``; "interval notation" is an
  interval, not an inequality; "to the nearest tenth / hundredth / thousandth / whole number" has
  that many decimals; "as a mixed number" is one where the reference is; "expand" leaves no
  parenthesised sum; "what percent" is the reference's number.
"""

import math
import re

from benchmarks.grading.math_form import (
    ROOT_OF_INTEGER,
    is_value,
    last_side,
    refusal,
    square_free,
    tokens,
    undone_arithmetic,
)
from benchmarks.grading.math_nonanswer import restatement_features

_OPERATIONS = {"\\binom", "!", "\\log", "\\sin", "\\cos", "\\tan", "\\cot", "\\sec", "\\csc", "\\arcsin"}
_OPERATIONS |= {"\\arccos", "\\arctan", "\\sum", "\\prod", "\\int", "\\lim", "d/dx", "\\exp"}
_DECIMAL = re.compile(r"\d*\.(?:\d|\s*\\(?:overline|bar|dot)\b)")  # "0.\\overline{3}": a repeating decimal too
ASKS_ROUNDING = re.compile(r"decimal|round|nearest|approximat|estimate|significant", re.IGNORECASE)
_ROOT_IN_DENOMINATOR = re.compile(r"\\[dt]?frac\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|\d)\s*\{[^{}]*\\sqrt|/\s*\\sqrt")
# A fraction under a root, ``\\sqrt{\\frac{2}{3}}`` or ``\\sqrt{2/3}``: simplest radical form takes it out.
_FRACTION_UNDER_ROOT = re.compile(r"\\sqrt\s*(?:\[[^\]]*\]\s*)?\{\s*(?:\\[dt]?frac\b|[^{}]*/)")
_FRACTION = re.compile(
    r"\\[dt]?frac\s*(?:\{\s*(\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))|(?<![\d.])(\d+)\s*/\s*(\d+)(?![\d.])"
)
_COEFFICIENT_FRACTION = re.compile(
    r"\\[dt]?frac\s*\{\s*(\d+)\s*(?:\\sqrt\s*(?:\{[^{}]*\}|\d)|\\pi|[A-Za-z])\s*\}\s*\{\s*(\d+)\s*\}"
)
_NUMBER_TOKEN = re.compile(r"\d+(?:\.\d+)?")
_MIXED = re.compile(r"(?<![\w}^_.\\])\d+\s*\\[dt]?frac\s*(?:\{\s*\d+\s*\}|\d)\s*(?:\{\s*\d+\s*\}|\d)")
_INEQUALITY = re.compile(r"<|>|\\[lg]eq?\b|\\[lg]eqslant|\\leq|\\geq")
_NEAREST = {"tenth": 1, "hundredth": 2, "thousandth": 3, "whole number": 0, "integer": 0, "dollar": 0, "cent": 2}
_ASKS_NEAREST = re.compile(r"nearest\s+(tenth|hundredth|thousandth|whole number|integer|dollar|cent)", re.IGNORECASE)
_ASKS_PI = re.compile(r"in terms of\s*\$?\s*\\pi", re.IGNORECASE)
_ASKS_INTERVAL = re.compile(r"interval notation", re.IGNORECASE)
_ASKS_MIXED = re.compile(r"mixed (?:number|numeral|fraction)", re.IGNORECASE)
_ASKS_EXPAND = re.compile(r"\bexpand|standard form|as a polynomial|multiply out", re.IGNORECASE)
_ASKS_PERCENT = re.compile(r"what percent|as a percent|percentage", re.IGNORECASE)
_PARENTHESISED = re.compile(r"\(([^()]*)\)")  # an innermost parenthesised group
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _unreduced(text: str) -> bool:
    """A fraction of integers, or of an integer times a root, pi or a variable, not in lowest terms."""
    for found in _COEFFICIENT_FRACTION.finditer(text):
        if math.gcd(int(found.group(1)), int(found.group(2))) > 1:
            return True
    for found in _FRACTION.finditer(text):
        top = found.group(1) or found.group(2) or found.group(5)
        bottom = found.group(3) or found.group(4) or found.group(6)
        if top and bottom and int(bottom) != 0 and (math.gcd(int(top), int(bottom)) > 1 or int(bottom) == 1):
            return True
    return False


def _parenthesised_sum(text: str) -> bool:
    """A parenthesised sum with a variable in it, "(x+2)": what "expand" asks to multiply out."""
    return any(
        re.search(r"[A-Za-z]", group) and re.search(r"[+-]", group.lstrip(" -+"))
        for group in _PARENTHESISED.findall(text)
    )


def _decimals(text: str) -> int:
    found = re.search(r"\d\.(\d+)", text)
    return len(found.group(1)) if found else 0


def _form_asked(answer: str, reference: str, problem: str) -> str | None:
    """Why `answer` is not in a form the problem asks for (module docstring), else None."""
    if _ASKS_PI.search(problem) and "\\pi" in reference and "\\pi" not in answer:
        return "not in terms of pi"
    if _ASKS_INTERVAL.search(problem) and _INEQUALITY.search(answer) and not _INEQUALITY.search(reference):
        return "not in interval notation"
    nearest = _ASKS_NEAREST.search(problem)
    if nearest and _NUMBER.fullmatch(answer.strip()) and _decimals(answer) != _NEAREST[nearest.group(1).lower()]:
        return f"not rounded to the nearest {nearest.group(1).lower()}"
    if _ASKS_MIXED.search(problem) and _MIXED.search(reference) and not _MIXED.search(answer):
        return "not the mixed number asked"
    if _ASKS_EXPAND.search(problem) and _parenthesised_sum(answer) and not _parenthesised_sum(reference):
        return "not expanded"
    if _ASKS_PERCENT.search(problem):
        given, wanted = _NUMBER.search(answer), _NUMBER.search(reference)
        if given and wanted and abs(float(given.group()) - float(wanted.group())) > 1e-9:
            return "not the percent the problem asks for"
    return None


def left_unevaluated(answer: str, reference: str) -> bool:
    """Whether the answer leaves arithmetic or an operation for the reader that the reference has
    done: a value written as an expression, two numbers not combined, ``\\binom``, a root of a square..."""
    judged, wanted = last_side(answer), last_side(reference)
    if tokens(judged) == tokens(wanted):
        return False
    if is_value(wanted) and not is_value(judged) and not re.fullmatch(r"[-+]?[\d.]+", judged.strip()):
        return True
    if undone_arithmetic(judged) - undone_arithmetic(wanted) or _number_product(judged) and not _number_product(wanted):
        return True
    features, wanted_features = restatement_features(judged), restatement_features(wanted)
    return bool((features - wanted_features) & (_OPERATIONS | {"factored"}))


def _number_product(text: str) -> bool:
    """A product with a plain number still to multiply in: ``\\frac{4}{3}\\pi \\cdot 27``, ``2 \\cdot 3\\sqrt2``
    (not ``\\sqrt{3} \\cdot 5``: nothing there combines with the 5)."""
    items = tokens(text, keep_braces=True)
    for i in range(1, len(items) - 1):
        if items[i] != "*" or not _NUMBER_TOKEN.fullmatch(items[i + 1]):
            continue
        left = items[i - 1]
        if left in (")", "\\pi") or _NUMBER_TOKEN.fullmatch(left) or (left == "}" and _closes_fraction(items, i - 1)):
            return True
    return False


def _group_start(items: list, end: int) -> int:
    """The index of the "{" that the "}" at `end` closes (-1 when unbalanced)."""
    depth = 0
    for index in range(end, -1, -1):
        depth += {"}": 1, "{": -1}.get(items[index], 0)
        if depth == 0:
            return index
    return -1


def _closes_fraction(items: list, end: int) -> bool:
    """Whether the "}" at `end` closes the denominator of a ``\\frac``."""
    start = _group_start(items, end)
    if start < 1 or items[start - 1] != "}":
        return False
    numerator = _group_start(items, start - 1)
    return numerator >= 1 and items[numerator - 1] == "\\frac"


def strict_refusal(answer: str, reference: str, problem: str | None = None) -> str | None:
    """Why strict grading refuses `answer`, which lenient grading credits, or None (module docstring)."""
    judged, wanted = last_side(answer), last_side(reference)
    reason = refusal(answer, reference, problem)
    if reason is not None or "".join(judged.split()) == "".join(wanted.split()):
        return reason
    left_over = (restatement_features(judged) - restatement_features(wanted)) & _OPERATIONS
    if left_over:
        return "unevaluated " + ", ".join(sorted(left_over))
    if left_unevaluated(judged, wanted):
        return "arithmetic left undone"
    if _DECIMAL.search(judged) and not _DECIMAL.search(wanted) and not (problem and ASKS_ROUNDING.search(problem)):
        return "a decimal for an exact value"
    if not all(square_free(int(root.group(1) or root.group(2))) for root in ROOT_OF_INTEGER.finditer(judged)):
        return "radical not simplified"
    if _ROOT_IN_DENOMINATOR.search(judged) and not _ROOT_IN_DENOMINATOR.search(wanted):
        return "radical in the denominator"
    if _FRACTION_UNDER_ROOT.search(judged) and not _FRACTION_UNDER_ROOT.search(wanted):
        return "fraction under the radical"
    if _unreduced(judged) and not _unreduced(wanted):
        return "fraction not in lowest terms"
    if _MIXED.search(judged) and not _MIXED.search(wanted):
        return "mixed number"
    return _form_asked(judged, wanted, problem) if problem else None
