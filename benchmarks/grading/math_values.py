"""Equality in value, by math-verify: answer against reference, and the problem's expressions that equal it.

    equal_in_value("\\frac{1}{2}", "0.5")                       # True
    equal_in_value("x > 2", "(2, \\infty)")                    # True: an inequality in one variable is an interval
    equal_values("3 \\cdot 4", "12")                           # True (for the sides of an equation)
    problem_expressions("Expand $(x-1)(x+4)$.", "x^2+3x-4")     # ("(x-1)(x+4)",): the question's expression

Both sides are handed to math-verify boxed, the same parse on each (numbers as numbers, order-free
lists, intervals, tuples, matrices, ``\\text{}``, units and degrees normalised away), after
`benchmarks.grading.math_normal.for_verify` (mixed numbers as sums). math-verify's own timeouts are off:
the caller bounds the time (`benchmarks.grading.math_check`).

`problem_expressions` lists the expressions of a problem whose value is the reference's: the
expression the question asks to transform ("Simplify $\\sqrt{75}$", "What is 9 + 6?"). They are
read from the problem's math spans (split at "=", ",", ";") and from plain-text arithmetic
("9 + 6"), at most MAX_EXPRESSIONS of them, each parsed once per (problem, reference) pair.
"""

import functools
import re
from fractions import Fraction

import sympy
from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
from sympy.core.relational import Equality, Relational, Unequality

from benchmarks.grading.math_form import split_top_level
from benchmarks.grading.math_nonanswer import NEUTRAL, restatement_features
from benchmarks.grading.math_normal import for_verify

FLOAT_DIGITS = 6  # math-verify's float_rounding
MAX_EXPRESSIONS = 24  # problem expressions compared with the reference, at most
EXPRESSION_CHARS = 200  # the longest problem expression compared

_EXTRACTION = (LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig())
_MATH_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_DEGREE = re.compile(r"\^\s*(?:\{\s*\\circ\s*\}|\\circ)")
_PLAIN_RATIONAL = re.compile(
    r"([+-]?)\s*(?:(\d+(?:\.\d*)?|\.\d+)|\\[dt]?frac\s*(?:\{\s*(\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))"
    r"|(\d+)\s*/\s*(\d+))"
)
_PLAIN_ARITHMETIC = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:\s*(?:[-+*/×÷^]|\\times|\\cdot)\s*\d+(?:\.\d+)?)+(?![\w.])")


@functools.lru_cache(maxsize=8192)
def parsed(text: str) -> tuple:
    """math-verify's reading of `text` (boxed), cached: references recur across samples."""
    return tuple(parse("\\boxed{" + for_verify(text) + "}", _EXTRACTION, parsing_timeout=None))


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


def rational(text: str) -> tuple[Fraction, bool] | None:
    """(value, written with a decimal point) of a plain number or fraction of integers ("-0.25",
    "\\frac{3}{4}", "3/4"); None for anything else."""
    found = _PLAIN_RATIONAL.fullmatch(text.strip())
    if found is None:
        return None
    sign, number, top, top_digit, bottom, bottom_digit, slash_top, slash_bottom = found.groups()
    try:
        if number is not None:
            value = Fraction(number)
        else:
            value = Fraction(int(top or top_digit or slash_top), int(bottom or bottom_digit or slash_bottom))
    except (ValueError, ZeroDivisionError):
        return None
    return (-value if sign == "-" else value), number is not None and "." in number


def _same_number(first: tuple[Fraction, bool], second: tuple[Fraction, bool]) -> bool:
    """Plain numbers compared as math-verify compares them: exactly, and where either is written
    as a decimal also after rounding both to FLOAT_DIGITS places ("0.333333" is 1/3)."""
    if first[0] == second[0]:
        return True
    return (first[1] or second[1]) and round(first[0], FLOAT_DIGITS) == round(second[0], FLOAT_DIGITS)


def equal_in_value(answer: str, reference: str) -> bool:
    """Whether math-verify finds the answer equal to the reference (inequalities read as intervals);
    two plain numbers are compared here, without sympy (`rational`)."""
    numbers = rational(answer), rational(reference)
    if numbers[0] is not None and numbers[1] is not None:
        return _same_number(*numbers)
    gold = parsed(reference)
    predicted = list(parsed(answer))
    if not gold or not predicted:
        return False
    return verify(list(gold), _with_intervals(predicted, gold), timeout_seconds=None)


def equal_values(left: str, right: str) -> bool:
    """Whether two sides of an equation have the same value."""
    first, second = parsed(left), parsed(right)
    return bool(first and second) and verify(list(first), list(second), timeout_seconds=None)


def _close(first, second) -> bool:
    """Two numbers equal up to floating-point error (``\\frac{\\sqrt{2.5^2-0.7^2}}{2.7-2.5}`` is 12)."""
    if not isinstance(first, sympy.Expr) or not isinstance(second, sympy.Expr):
        return False
    if first.free_symbols or second.free_symbols:
        return False
    a, b = complex(first.evalf(30)), complex(second.evalf(30))
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


@functools.lru_cache(maxsize=1024)
def problem_candidates(problem: str) -> tuple[str, ...]:
    """Expressions of the problem (module docstring) that are more than a lone number or symbol."""
    found, prose = [], problem
    for span in _MATH_SPAN.finditer(problem):
        inner = next(group for group in span.groups() if group is not None)
        found.extend(part.replace("\\quad", " ").strip() for part in split_top_level(inner, "=,;"))
        prose = prose.replace(span.group(), " ")
    found.extend(match.group() for match in _PLAIN_ARITHMETIC.finditer(prose))
    unique = []
    for expression in found:
        if expression and len(expression) <= EXPRESSION_CHARS and expression not in unique:
            core = _DEGREE.sub("", expression)  # "30^\\circ" is a number, not an expression
            if restatement_features(core) - NEUTRAL and re.search(r"[-+*/^!]|\\[A-Za-z]", core):
                unique.append(expression)
    return tuple(unique[:MAX_EXPRESSIONS])


@functools.lru_cache(maxsize=4096)
def problem_expressions(problem: str, reference: str) -> tuple[str, ...]:
    """The problem's expressions equal in value to the reference (module docstring)."""
    gold = parsed(reference)
    if not gold:
        return ()
    equal = []
    for expression in problem_candidates(problem):
        try:
            value = parsed(expression)
            if value and (verify(list(gold), list(value), timeout_seconds=None) or _close(gold[0], value[0])):
                equal.append(expression)
        except Exception:  # an expression math-verify cannot read is no restatement target
            continue
    return tuple(equal)
