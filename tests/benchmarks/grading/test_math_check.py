"""The pure math checker (`benchmarks.grading.math_check` and its parts `math_answer`, `math_form`): boxed-answer
scan, answer rules, refusals, bases, integer fast path, the limits on what is read and what reaches
math-verify, the main-thread budget."""

import time

import pytest

from benchmarks.grading.math_answer import extract
from benchmarks.grading.math_boxes import GROUP_CHARS, MAX_BOXES
from benchmarks.grading.math_check import (
    ANSWER_CHARS,
    READ_CHARS,
    check_fast,
    check_in_main_thread,
    check_unbounded,
    last_boxed_content,
)
from benchmarks.grading.math_final import answer_text
from benchmarks.grading.math_form import base_verdict, last_side, refusal


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("so \\boxed{\\frac{1}{2}}.", "\\frac{1}{2}"),
        ("\\boxed{a} then \\boxed{ b }", "b"),
        ("\\boxed{a \\boxed{b}}", "b"),  # the last box to start wins, as before
        ("\\boxed{46} and an unclosed \\boxed{47", "46"),
        ("}} \\boxed{1}}}", "1"),
        ("\\fbox{x}", "x"),
        ("\\boxed {x}", "x"),
        ("\\boxed{}", ""),
        ("\\boxed{", None),
        ("no box", None),
    ],
)
def test_last_boxed_content(text, content):
    assert last_boxed_content(text) == content


@pytest.mark.parametrize("text", ["\\boxed{" * 200_000, "{" * 1_000_000, "\\boxed{}" * 200_000, "}" * 1_000_000])
def test_last_boxed_content_is_linear(text):
    started = time.monotonic()
    last_boxed_content(text)
    assert time.monotonic() - started < 2.0  # a quadratic scan takes hours here


def lenient_and_answer(verdict) -> tuple:
    """(lenient verdict, extracted answer) of a `Verdict`."""
    return verdict.lenient, verdict.extracted


def test_integer_fast_path_compares_digit_strings():
    big = "9" * 10_000
    assert lenient_and_answer(check_fast(f"\\boxed{{00{big}}}", f"{big}.00")) == (True, f"00{big}")
    assert lenient_and_answer(check_fast(f"\\boxed{{-{big}}}", big)) == (False, f"-{big}")
    assert lenient_and_answer(check_fast("\\boxed{-0}", "+0")) == (True, "-0")
    assert lenient_and_answer(check_fast("12.", "12")) == (True, "12")


def test_only_the_tail_of_a_completion_is_read():
    assert lenient_and_answer(check_fast(" " * READ_CHARS + "\\boxed{5}", "5")) == (True, "5")
    assert lenient_and_answer(check_fast("\\boxed{5}" + " " * READ_CHARS, "5")) == (
        False,
        None,
    )  # the box lies before the tail


def test_a_too_long_answer_does_not_reach_math_verify():
    long_answer = "x+" * ANSWER_CHARS + "x"
    started = time.monotonic()
    assert lenient_and_answer(check_unbounded(f"\\boxed{{{long_answer}}}", "5")) == (False, long_answer)
    assert time.monotonic() - started < 0.5
    assert lenient_and_answer(check_fast(f"\\boxed{{{long_answer}}}", long_answer)) == (
        True,
        long_answer,
    )  # identical still matches


def test_main_thread_budget_covers_extraction():
    started = time.monotonic()
    assert lenient_and_answer(check_in_main_thread("\\boxed{9^{9^{9^9}}}", "5", 0.5)) == (False, "9^{9^{9^9}}")
    assert time.monotonic() - started < 1.0


def test_the_timer_stops_math_verify():
    # Not refused up front (the reference is an expression too): sympy starts on 3^100000000.
    started = time.monotonic()
    assert lenient_and_answer(check_in_main_thread("\\boxed{3^{100000000}}", "3^{100000000} + 1", 0.5)) == (
        False,
        "3^{100000000}",
    )
    assert 0.4 < time.monotonic() - started < 1.0


@pytest.mark.parametrize(
    ("text", "answer", "spans"),
    [
        ("\\boxed{2} and \\boxed{3}", "2, 3", ("\\boxed{2}", "\\boxed{3}")),
        ("$\\boxed{1}$, $\\boxed{-2}$", "1, -2", ("\\boxed{1}", "\\boxed{-2}")),
        ("\\boxed{46} and then \\boxed{47}", "47", ("\\boxed{47}",)),
        ("\\boxed{}", "", ("\\boxed{}",)),
    ],
)
def test_boxes_of_one_answer(text, answer, spans):
    extracted = extract(text)
    assert (extracted, extracted.rule, extracted.spans) == (answer, "boxed", spans)


def test_split_boxes_are_bounded():
    assert len(extract("\\boxed{1}, " * (MAX_BOXES + 2) + "\\boxed{2}").spans) == MAX_BOXES
    assert extract("\\boxed{1}, " * 1000 + "\\boxed{2}") is None  # a list of candidates commits to none
    assert extract("\\boxed{1}, " + " " * GROUP_CHARS + "\\boxed{2}") == "2"  # too far apart


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("$x = 5$", "x = 5"),
        ("5 cm", "5"),
        ("5 \\text{ cm}", "5 \\text{ cm}"),
        ("\\$32,348", "\\$32,348"),
        ("Evelyn", "Evelyn"),
        ('"37"', "37"),
        ("not 42 but", None),
        ("$2000 / 2 = 1000 calories", None),
        ("5.\nThen", None),
        ("", None),
    ],
)
def test_answer_text(text, answer):
    assert answer_text(text) == answer


def test_the_statement_must_end_the_completion():
    assert extract("The answer is 5. I hope it is correct.") == "5"
    assert extract("The answer is 5.\n\nI hope this helps!") == "5"
    assert extract("The answer is 5. But then 6 is better") is None
    assert extract("The answer is 5.", truncated=True) is None
    with pytest.raises(ValueError, match="unknown answer fallback"):
        extract("5", fallback="anything")


@pytest.mark.parametrize(
    ("answer", "reference", "problem", "reason"),
    [
        ("\\sqrt{242}", "11\\sqrt2", "Simplify $\\sqrt{242}$.", "restates the problem"),
        ("\\left(\\sqrt{ 242 }\\right)", "11\\sqrt2", "Simplify $\\sqrt{242}$.", "restates the problem"),
        ("\\frac{3}{8}", "0.375", "Express $\\dfrac{3}{8}$ as a decimal.", "restates the problem"),
        ("99^2+99+1", "9901", None, "unevaluated (the reference is a value)"),
        ("\\frac{10}{2}", "5", None, "unevaluated (the reference is a value)"),
        ("\\frac{16}{42}", "\\frac{8}{21}", None, "unevaluated (the reference is a value)"),
        ("\\sqrt{121 \\cdot 2}", "11\\sqrt2", None, "arithmetic left undone"),
        ("15x - 81 + 1", "15x - 80", None, "arithmetic left undone"),
        (
            "4\\frac{2}{3}",
            "\\frac{14}{3}",
            "Express it as a common fraction.",
            "not the common fraction the problem asks for",
        ),
        ("\\frac{321}{100}", "3.21", "What is it (as a decimal)?", "not the decimal the problem asks for"),
        (
            "\\sqrt{117}",
            "3\\sqrt{13}",
            "Use simplest radical form.",
            "not in the simplest radical form the problem asks for",
        ),
        ("11\\sqrt{2}", "11\\sqrt2", "Simplify $\\sqrt{242}$.", None),
        ("x+1", "1+x", "Let $2x+10$ be ...", None),  # whole tokens only: "x+1" is not in "2x+10"
        ("1-2/\\pi", "1-\\frac{2}{\\pi}", None, None),
        ("2^{25} \\cdot 26!", "2^{25} \\times 26!", None, None),
        ("1\\frac{4}{5}", "\\frac95", None, None),
        ("864 \\text{ square inches}", "864 \\mbox{ inches}^2", None, None),
        ("\\$18.90", "18.9", None, None),
    ],
)
def test_refusal(answer, reference, problem, reason):
    assert refusal(answer, reference, problem) == reason


@pytest.mark.parametrize(
    ("answer", "reference", "verdict"),
    [
        ("52_{10}", "52_8", False),
        ("(52)_8", "52_8", True),
        ("052", "52_8", True),
        ("58_9 - 18_9", "40_9", False),
        ("A_{16}", "10", False),
        ("42", "42", None),  # no base on either side: math-verify decides
        ("x_1", "x_1", None),  # a subscripted name is no numeral
        ("\\frac12", "0.5", None),
    ],
)
def test_base_verdict(answer, reference, verdict):
    assert base_verdict(answer, reference) is verdict


def test_last_side():
    assert last_side("99^2+99+1 = 9901") == "9901"
    assert last_side("5 = x") == "5"
    assert last_side("x \\le 5") == "x \\le 5"
    assert last_side("f(x=1) = 2") == "2"


def test_a_timeout_inside_a_finaliser_is_dropped_quietly_and_other_errors_are_not(capsys):
    import sys
    import weakref

    from benchmarks.grading.math_deadline import Deadline, GradingTimeout

    class Thing:
        pass

    seen = []
    previous = sys.unraisablehook
    deadline = Deadline(5.0)
    try:
        deadline.previous_unraisable_hook = lambda unraisable: seen.append(type(unraisable.exc_value))
        for error in (GradingTimeout, ValueError):

            def finaliser(ref, error=error):
                raise error

            thing = Thing()
            keep = weakref.ref(thing, finaliser)
            del thing  # the callback raises inside a finaliser: Python hands it to sys.unraisablehook
            assert keep() is None
    finally:
        deadline.disarm()
        restored, sys.unraisablehook = sys.unraisablehook, previous
    assert seen == [ValueError] and restored != deadline._on_unraisable  # disarm puts the hook back
    assert "GradingTimeout" not in capsys.readouterr().err
