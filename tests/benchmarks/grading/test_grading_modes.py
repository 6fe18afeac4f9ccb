"""The grader's two modes (`benchmarks.grading.math_grader`): non-answers refused in both, worked-out form in strict,
the readings a careful reader credits in both, and the API (`strict=`, `grade_math_verdicts`)."""

import threading

import pytest

from benchmarks import grade_math, grade_math_batch
from benchmarks.grading.math_grader import Verdict, check_batch, grade_math_verdicts

AMC = (
    "How many? $\\textbf{(A) }10\\qquad\\textbf{(B) }11\\qquad\\textbf{(C) }12\\qquad\\textbf{(D) }13"
    "\\qquad\\textbf{(E) }14$"
)

# (completion, reference, problem): refused in both modes (families 1, 4, 5 of issue 17).
NON_ANSWERS = [
    ("\\boxed{(x+4)(x-1)}", "x^2+3x-4", "Expand $(x-1)(x+4)$."),
    ("\\boxed{75^{1/2}}", "5\\sqrt{3}", "Simplify $\\sqrt{75}$."),
    ("\\boxed{\\sqrt[2]{75}\\cdot 1}", "5\\sqrt{3}", "Simplify $\\sqrt{75}$."),
    ("\\boxed{\\cos^{-1}(0)}", "\\frac{\\pi}{2}", "Compute $\\arccos 0$."),
    ("\\boxed{\\frac{(x-3)(x+3)}{x-3}}", "x+3", "Simplify $\\frac{x^2-9}{x-3}$."),
    ("\\boxed{6+9}", "15", "What is $9+6$?"),
    ("\\boxed{\\frac{d}{dx}x^4}", "4x^3", "Differentiate $x^4$."),  # the question's operation on its expression
    ("\\boxed{9801 + 100}", "9901", "Compute $99^2+99+1$."),
    ("\\boxed{(5+\\sqrt{3})(5-\\sqrt{3})}", "22", "Compute the product of $5+\\sqrt{3}$ and its conjugate."),
    ("9 6", "15", "What is $9+6$?"),
    ("\\boxed{9\\;6}", "15", "What is $9+6$?"),
    ("\\boxed{9\\,6}", "15", "What is $9+6$?"),
    ("\\boxed{9^\\circ 6}", "15", "What is $9+6$?"),
    ("\\boxed{15\\text{ (or 16)}}", "15", "How many?"),
    ("\\boxed{15 \\text{ or } 16}", "15", "How many?"),
    ("\\boxed{\\approx 15}", "15", "How many?"),
    ("\\boxed{3 = 12}", "12", "How many?"),
    ("So \\boxed{12}. Wait, that is wrong.", "12", "How many?"),
    ("So \\boxed{11}. % \\boxed{12}", "12", "How many?"),
    ("So \\boxed{11} $\\phantom{\\boxed{12}}$", "12", "How many?"),
    ("So \\boxed{11}.\n```\n\\boxed{12}\n```", "12", "How many?"),
    ("So \\boxed{11} <!-- \\boxed{12} -->", "12", "How many?"),
]

# Right in value, refused by strict grading only (families 2, 3).
STRICT_ONLY = [
    ("\\boxed{\\frac{24}{2}}", "12", None),
    ("\\boxed{2^{10}}", "1024", None),
    ("\\boxed{\\binom62}", "15", None),
    ("\\boxed{\\sqrt{144}}", "12", None),
    ("\\boxed{\\frac{d}{dx}x^4}", "4x^3", "What is the derivative of the fourth power of $x$?"),
    ("\\boxed{1.414214}", "\\sqrt{2}", "How long is the diagonal of a unit square?"),
    ("\\boxed{0.333333}", "\\frac13", "What is the probability?"),
    ("\\boxed{0.5}", "\\frac12", "What is the probability?"),
    ("\\boxed{\\sqrt8}", "2\\sqrt2", "How long is it?"),
    ("\\boxed{\\frac{3}{\\sqrt3}}", "\\sqrt3", "How long is it?"),
    ("\\boxed{\\frac{16}{42}}", "\\frac{8}{21}", "What is the probability?"),
    ("\\boxed{2\\frac13}", "\\frac73", "How many pounds?"),
    ("\\boxed{x > 2}", "(2, \\infty)", "Solve $x - 2 > 0$. Give your answer in interval notation."),
    (
        "\\boxed{78.539816}",
        "25\\pi",
        "What is the area of a circle of radius 5? Express your answer in terms of $\\pi$.",
    ),
    ("\\boxed{0.375}", "\\frac38", "Write three eighths as a common fraction."),
]

# Right in both modes (family 6 and ordinary answers).
CREDITED = [
    ("\\boxed{1{,}000{,}000}", "1000000", None),
    ("\\boxed{\\$2{,}500}", "2500", None),
    ("\\boxed{1\\,000}", "1000", None),
    ("\\boxed{\\mathbf{12}}", "12", None),
    ("\\boxed{\\hspace{2pt}12}", "12", None),
    ("\\boxed{\\textbf{(C)}\\ 12}", "12", AMC),
    ("\\boxed{(C)}", "12", AMC),
    ("\\boxed{\\frac{-1\\pm\\sqrt5}{2}}", "\\frac{-1+\\sqrt5}{2}, \\frac{-1-\\sqrt5}{2}", "Solve $x^2+x-1=0$."),
    ("The answer is 12. Check: $3 \\cdot 4 = 12$, correct.", "12", None),
    ("\\boxed{x^2+3x-4}", "x^2+3x-4", "Expand $(x-1)(x+4)$."),
    ("\\boxed{-4+3x+x^2}", "x^2+3x-4", "Expand $(x-1)(x+4)$."),
    ("\\boxed{\\sqrt{3}\\cdot 5}", "5\\sqrt{3}", "Simplify $\\sqrt{75}$."),
    ("\\boxed{3 \\cdot 4 = 12}", "12", "How many?"),
    ("So \\boxed{12}. Wait, let me verify: $3 \\cdot 4 = 12$, which is correct.", "12", "How many?"),
    ("It grows by 20% so \\boxed{120}", "120", None),
    ("\\boxed{1.5}", "1.5", "What is the ratio? Express your answer as a decimal."),
]


def _verdict(completion, reference, problem) -> Verdict:
    return grade_math_verdicts([completion], [reference], problems=[problem])[0]


@pytest.mark.parametrize(("completion", "reference", "problem"), NON_ANSWERS)
def test_non_answers_are_refused_in_both_modes(completion, reference, problem):
    verdict = _verdict(completion, reference, problem)
    assert (verdict.lenient, verdict.strict) == (False, False), verdict


@pytest.mark.parametrize(("completion", "reference", "problem"), STRICT_ONLY)
def test_unworked_forms_are_refused_by_strict_grading_only(completion, reference, problem):
    verdict = _verdict(completion, reference, problem)
    assert (verdict.lenient, verdict.strict) == (True, False), verdict
    assert verdict.reason


@pytest.mark.parametrize(("completion", "reference", "problem"), CREDITED)
def test_answers_a_careful_reader_credits(completion, reference, problem):
    verdict = _verdict(completion, reference, problem)
    assert (verdict.lenient, verdict.strict) == (True, True), verdict


def test_the_strict_keyword_on_every_entry_point():
    completion, reference = "\\boxed{\\frac{24}{2}}", "12"
    assert grade_math(completion, reference) is True
    assert grade_math(completion, reference, strict=True) is False
    assert grade_math_batch([completion], [reference], strict=True) == [False]
    assert check_batch([completion], [reference], strict=True)[0][0] is False
    with pytest.raises(ValueError, match="strict must be True or False"):
        grade_math(completion, reference, strict="yes")


def test_strict_credit_implies_lenient_credit():
    rows = NON_ANSWERS + STRICT_ONLY + CREDITED
    verdicts = grade_math_verdicts([r[0] for r in rows], [r[1] for r in rows], problems=[r[2] for r in rows])
    assert all(verdict.lenient for verdict in verdicts if verdict.strict)


def test_both_modes_agree_off_the_main_thread():
    rows = NON_ANSWERS[:6] + STRICT_ONLY[:6] + CREDITED[:6]
    args = [r[0] for r in rows], [r[1] for r in rows]
    here = grade_math_verdicts(*args, problems=[r[2] for r in rows])
    there = []
    worker = threading.Thread(target=lambda: there.extend(grade_math_verdicts(*args, problems=[r[2] for r in rows])))
    worker.start()
    worker.join()
    assert [(v.lenient, v.strict, v.reason) for v in there] == [(v.lenient, v.strict, v.reason) for v in here]
