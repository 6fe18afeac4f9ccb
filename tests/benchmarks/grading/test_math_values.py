"""Equality in value (`benchmarks.grading.math_values`): the sympy-free path for plain numbers agrees with
math-verify, and the problem's expressions that equal the reference are found."""

import itertools

from math_verify import verify

from benchmarks.grading.math_values import _same_number, equal_in_value, parsed, problem_expressions, rational

NUMBERS = ["0", "1", "-1", "0.5", "\\frac12", "1/2", "\\frac{1}{3}", "0.333333", "0.3333", "0.33", "\\frac{2}{3}"]
NUMBERS += ["0.666667", "0.666666", "27", "27.0", "27.5", "\\frac{55}{2}", "-0.25", "-\\frac14", "1.414214", ".5"]
NUMBERS += [
    "5.",
    "\\frac{10}{4}",
    "2.5",
    "\\frac{7}{3}",
    "2.333333",
    "2.3333333",
    "\\frac{1}{7}",
    "0.142857",
    "0.142858",
]


def test_plain_numbers_compare_as_math_verify_compares_them():
    pairs = list(itertools.product(NUMBERS, NUMBERS))
    assert all(rational(text) is not None for text in NUMBERS)
    differ = [
        (a, b)
        for a, b in pairs
        if _same_number(rational(a), rational(b)) != verify(list(parsed(b)), list(parsed(a)), timeout_seconds=None)
    ]
    assert differ == [] and len(pairs) == 900


def test_rational_reads_only_plain_numbers():
    assert rational("\\frac{3}{4}")[0] == rational("0.75")[0] == rational("3/4")[0]
    assert rational("0.75")[1] is True and rational("\\frac34")[1] is False
    assert [rational(text) for text in ("\\sqrt2", "1e5", "\\frac{1}{0}", "x", "2\\frac13")] == [None] * 5


def test_equal_in_value_reads_intervals_and_expressions():
    assert equal_in_value("x > 2", "(2, \\infty)")
    assert equal_in_value("\\frac{\\sqrt2}{2}", "\\frac{1}{\\sqrt2}")
    assert equal_in_value("2\\frac13", "\\frac73")  # a mixed number is a sum
    assert not equal_in_value("\\sqrt2", "2")


def test_problem_expressions_equal_to_the_reference():
    assert problem_expressions("Expand $(x-1)(x+4)$.", "x^2+3x-4") == ("(x-1)(x+4)",)
    assert problem_expressions("What is 9 + 6?", "15") == ("9 + 6",)
    assert problem_expressions("Simplify: $\\frac{\\sqrt{2.5^2-0.7^2}}{2.7-2.5}$.", "12")  # equal up to float error
    assert problem_expressions("If $x + 5 = 10$, what is $x$?", "5") == ()
