"""The Countdown checker: exact arithmetic over a whitelisted expression, each given number used once,
the reasoning written out before the answer (strict)."""

import pytest

from benchmarks.grading.countdown_check import (
    check_expression,
    grade_countdown,
    grade_countdown_batch,
    parse_spec,
)
from benchmarks.grading.task_grader import grade_answers


@pytest.mark.parametrize(
    "expression",
    ["(5*3)+7", "7+5*3", "3*5+7", " ( 7 + (3*5) ) ", "7+(5*3)"],
)
def test_valid_expressions_reach_the_target(expression):
    assert check_expression(expression, [3, 5, 7], 22)


@pytest.mark.parametrize(
    "expression,why",
    [
        ("5*3+7+0", "a number not given"),
        ("5*3+7+3-3", "numbers used twice"),
        ("22", "the target itself"),
        ("5*3", "a number left unused"),
        ("7*3+1", "1 is not given"),
        ("-5+27", "unary minus"),
        ("5**3", "a power"),
        ("int(22)", "a call"),
        ("x+22", "a name"),
        ("5*3+7.0", "a float"),
        ("(5*3)+7 and 1", "a boolean operator"),
        ("5/(3-3)+7", "division by zero"),
        ("5*3+", "a syntax error"),
        ("", "nothing"),
        ("1+" * 150 + "1", "longer than any answer"),
    ],
)
def test_invalid_expressions_are_wrong(expression, why):
    assert not check_expression(expression, [3, 5, 7], 22), why


def test_division_is_exact_with_fractions():
    assert check_expression("(7/2)*2", [7, 2, 2], 7)  # 3.5 * 2, never rounded to 3
    assert check_expression("8/(3-8/3)", [8, 3, 8, 3], 24)  # 8 / (1/3): floats would give 23.999999999999993
    assert not check_expression("7/2+2", [7, 2, 2], 5)  # 5.5


def test_repeated_numbers_count_as_a_multiset():
    assert check_expression("8+5+8", [8, 5, 8], 21)
    assert not check_expression("8+5+5", [8, 5, 8], 18)


def test_strict_needs_true_steps_before_the_answer_lenient_only_the_expression():
    assert grade_countdown("5*3=15,15+7=22 A:(5*3)+7", [3, 5, 7], 22) == (True, True, "(5*3)+7")
    assert grade_countdown("A:(5*3)+7", [3, 5, 7], 22) == (True, False, "(5*3)+7")  # no reasoning
    assert grade_countdown("5*3=16,16+7=22 A:(5*3)+7", [3, 5, 7], 22)[:2] == (True, False)  # a false step
    assert grade_countdown("I think A:(5*3)+7", [3, 5, 7], 22)[:2] == (True, False)  # not steps
    assert grade_countdown("5*3=15,15+7=22 A:(5*3)+6", [3, 5, 7], 22)[:2] == (False, False)  # wrong answer
    assert grade_countdown("5*3=15,15+7=22", [3, 5, 7], 22) == (False, False, None)  # no answer
    # the last "A:" is the answer, and only its line
    assert grade_countdown("A:1 5*3=15,15+7=22 A:(5*3)+7\nmore", [3, 5, 7], 22)[2] == "(5*3)+7"


def test_steps_a_model_can_write_never_raise():
    # a leading zero: true arithmetic in a step; in the answer, Python syntax refuses it (a wrong answer)
    assert grade_countdown("33+05=38,38-3=35 A:(33+5)-3", [33, 5, 3], 35) == (True, True, "(33+5)-3")
    assert grade_countdown("33+05=38,38-3=35 A:(33+05)-3", [33, 5, 3], 35)[:2] == (False, False)
    assert grade_countdown("8/0=0 A:(5*3)+7", [3, 5, 7], 22)[:2] == (True, False)  # division by zero: false
    assert grade_countdown("7/2=3 A:(5*3)+7", [3, 5, 7], 22)[:2] == (True, False)  # exact: 7/2 is not 3
    huge = "9" * 5000  # int() refuses 4300+ digits; such a step is false, not an error
    assert grade_countdown(f"{huge}+1={huge} A:(5*3)+7", [3, 5, 7], 22)[:2] == (True, False)


def test_the_batch_grades_against_specs_and_the_task_grader_routes_by_reference():
    assert parse_spec("countdown:3 5 7>22") == ([3, 5, 7], 22)
    texts = ["5*3=15,15+7=22 A:(5*3)+7", "A:(5*3)+7", "The answer is \\boxed{52}."]
    assert grade_countdown_batch(texts[:2], ["countdown:3 5 7>22"] * 2, strict=True) == [True, False]
    assert grade_countdown_batch(texts[:2], ["countdown:3 5 7>22"] * 2, strict=False) == [True, True]
    references = ["countdown:3 5 7>22", "countdown:7 5 3>22", "52"]
    assert grade_answers(texts, references, strict=True) == [True, False, True]
    assert grade_answers(texts, references, strict=False) == [True, True, True]
