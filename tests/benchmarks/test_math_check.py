"""The pure math checker (`benchmarks.math_check`): boxed-answer scan, integer fast path, the limits on
what is read and what reaches math-verify, the main-thread budget."""

import time

import pytest

from benchmarks.math_check import (
    ANSWER_CHARS,
    READ_CHARS,
    check_fast,
    check_in_main_thread,
    check_unbounded,
    last_boxed_content,
)


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


def test_integer_fast_path_compares_digit_strings():
    big = "9" * 10_000
    assert check_fast(f"\\boxed{{00{big}}}", f"{big}.00") == (True, f"00{big}")
    assert check_fast(f"\\boxed{{-{big}}}", big) == (False, f"-{big}")
    assert check_fast("\\boxed{-0}", "+0") == (True, "-0")
    assert check_fast("12.", "12") == (True, "12")


def test_only_the_tail_of_a_completion_is_read():
    assert check_fast(" " * READ_CHARS + "\\boxed{5}", "5") == (True, "5")
    assert check_fast("\\boxed{5}" + " " * READ_CHARS, "5") is None  # the box lies before the tail


def test_a_too_long_answer_does_not_reach_math_verify():
    long_answer = "x+" * ANSWER_CHARS + "x"
    started = time.monotonic()
    assert check_unbounded(f"\\boxed{{{long_answer}}}", "5") == (False, long_answer)
    assert time.monotonic() - started < 0.5
    assert check_fast(f"\\boxed{{{long_answer}}}", long_answer) == (True, long_answer)  # identical still matches


def test_main_thread_budget_covers_extraction():
    started = time.monotonic()
    assert check_in_main_thread("\\boxed{9^{9^{9^9}}}", "5", 0.5) == (False, "9^{9^{9^9}}")
    assert time.monotonic() - started < 1.0
