"""Round-9 readings (issue 29): European number, interval and pair conventions; repeating decimals; the
ending of an unboxed completion as a reader reads it (end-of-proof marks, a side remark, a last check
paragraph, a display that closes its sentence, an empty span); a box set aside in so many words or
corrected; an alternative offered after the answer; notes to a checking program; a box whose sentence
names another quantity; a mixed number asked; hostile inputs aimed at them."""

import time

import pytest

from benchmarks.grading.math_address import addresses_grader
from benchmarks.grading.math_asked import subject_quantity
from benchmarks.grading.math_conventions import conventions, repeating
from benchmarks.grading.math_ending import reader_ending, without_check
from benchmarks.grading.math_grader import grade_math_verdicts
from benchmarks.grading.math_retraction import retracted


def both(completion: str, reference: str, problem: str | None = None) -> tuple[bool, bool]:
    verdict = grade_math_verdicts([completion], [reference], problems=[problem])[0]
    return bool(verdict.lenient), bool(verdict.strict)


@pytest.mark.parametrize(
    ("answer", "reference", "read"),
    [
        ("2{,}5", "2.5", "2.5"),
        ("0{,}125", "0.125", "0.125"),  # a leading 0: no thousands group
        ("12{,}500", "12500", "12{,}500"),  # three digits after a number: a thousands separator
        ("0,8", "0.8", "0.8"),
        ("x = 3,25", "3.25", "x = 3.25"),
        ("4,500", "4500", "4,500"),
        ("3,5", "3, 5", "3,5"),  # the reference is a list: the comma separates
        ("]0, 1[", "(0,1)", "(0, 1)"),
        ("]-\\infty ; 2]", "(-\\infty,2]", "(-\\infty, 2]"),
        ("[4;7[", "[4,7)", "[4, 7)"),
        ("\\left]1,2\\right]", "(1,2]", "\\left(1,2\\right]"),
        ("(2\\,;\\,-1)", "(2,-1)", "(2, -1)"),
        ("(0,5 ; 1,25)", "(0.5,1.25)", "(0.5, 1.25)"),
        ("\\{1;4;9\\}", "\\{1,4,9\\}", "\\{1, 4, 9\\}"),
        ("[1, 3]", "[1,3]", "[1, 3]"),  # a closed interval is the same in every convention
    ],
)
def test_conventions_are_read_as_their_value(answer, reference, read):
    assert conventions(answer, reference) == read


@pytest.mark.parametrize(
    ("completion", "reference", "problem", "verdict"),
    [
        ("Answer: $2{,}75$", "2.75", "Write $\\frac{11}{4}$ as a decimal.", (True, True)),
        ("Answer: $0{,}2$", "\\frac{1}{5}", "What part of 10 is 2? As a common fraction.", (True, False)),
        ("Answer: $2{,}5$", "3.5", "Write $\\frac{7}{2}$ as a decimal.", (False, False)),
        ("So $x \\in \\,]-3, 3[$.", "(-3,3)", "Solve $x^2 < 9$ in interval notation.", (True, True)),
        ("So $x \\in \\,]-3, 3]$.", "(-3,3)", "Solve $x^2 < 9$ in interval notation.", (False, False)),
        ("Answer: $(4\\,;\\,-2)$", "(4,-2)", "Solve the system. Give an ordered pair.", (True, True)),
        ("Answer: $(-2\\,;\\,4)$", "(4,-2)", "Solve the system. Give an ordered pair.", (False, False)),
    ],
)
def test_european_conventions_in_answers(completion, reference, problem, verdict):
    assert both(completion, reference, problem) == verdict


def test_repeating_decimals():
    assert repeating("0.1\\overline{6}") == "\\frac{1}{6}"
    assert repeating("1.\\overline{27}") == "\\frac{14}{11}"
    assert repeating("0.58\\dot{3}") == "\\frac{7}{12}"
    fraction = "What is $\\frac{1}{3} + \\frac{1}{4}$? Express your answer as a common fraction."
    assert both("$\\boxed{0.58\\overline{3}}$", "\\frac{7}{12}", fraction) == (True, False)
    assert both("$\\boxed{0.5\\overline{3}}$", "\\frac{7}{12}", fraction) == (False, False)
    assert both("$\\boxed{0.\\overline{4}}$", "\\frac49", "What is $4 \\div 9$?") == (True, False)
    # The question's own notation given back: it asks to convert repeating decimals.
    convert = "Write $0.\\overline{2} + 0.\\overline{1}$ as a common fraction."
    assert both("$\\boxed{0.\\overline{3}}$", "\\frac13", convert) == (False, False)


def test_a_mixed_number_asked():
    problem = "What is $1\\frac{1}{2} + 1\\frac{1}{3}$? Express your answer as a mixed number."
    assert both("$\\boxed{\\frac{17}{6}}$", "2\\frac{5}{6}", problem) == (True, False)
    assert both("$\\boxed{2\\frac{5}{6}}$", "2\\frac{5}{6}", problem) == (True, True)
    assert both("$\\boxed{2.8\\overline{3}}$", "2\\frac{5}{6}", problem) == (True, False)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("So $y = 7$. \u220e", "So $y = 7$."),
        ("Thus it is 12. Q.E.D.", "Thus it is 12."),
        ("Thus it is 12. $\\hfill\\square$", "Thus it is 12."),
        ("Hence $n = 4$. \u2713", "Hence $n = 4$."),
        ("Answer: $8$ $   $", "Answer: $8$"),
        ("Answer: $8$", "Answer: $8$"),  # the span's own delimiters are no empty span
        ("The side is\n$$s = 6.$$", "The side is $$s = 6$$."),
        ("Answer: 20. (Not 25: that counts the corners twice.)", "Answer: 20."),
        ("Answer: 20. (or 25 if corners count twice)", "Answer: 20. (or 25 if corners count twice)"),
        ("Answer: 20. (not sure)", "Answer: 20. (not sure)"),
        ("Answer: 20. (That is wrong.)", "Answer: 20. (That is wrong.)"),
        ("the frqed", "the frqed"),
    ],
)
def test_the_ending_a_reader_reads(text, read):
    assert reader_ending(text) == read


def test_a_last_paragraph_that_only_checks():
    assert without_check("So $x = 3$.\n\nCheck: $2 \\cdot 3 = 6$ \u2713") == "So $x = 3$."
    assert without_check("So $x = 3$.\n\nCheck: actually the answer is 4.") is None
    assert without_check("So $x = 3$.\n\nThe end.") is None
    problem = "Expand $(x + 2)(x - 2)$."
    completion = "Difference of squares.\n\n(x + 2)(x \u2212 2) = x\u00b2 \u2212 4\n\n"
    completion += "Check at $x = 3$: $5 \\cdot 1 = 5$ and $9 - 4 = 5$."
    assert both(completion, "x^2-4", problem) == (True, True)


@pytest.mark.parametrize(
    ("completion", "reference", "problem", "verdict"),
    [
        ("Hence $x = 6$. q.e.d.", "6", "Solve $x + 1 = 7$.", (True, True)),
        ("Hence $x = 5$. q.e.d.", "6", "Solve $x + 1 = 7$.", (False, False)),
        ("Therefore the area is\n$$A = 48.$$", "48", "Find the area of a 6 by 8 rectangle.", (True, True)),
        ("Answer: $30^\\circ$. (Not $150^\\circ$, the obtuse one.)", "30", "Find the acute angle.", (True, True)),
        ("Answer: $30^\\circ$ (or perhaps $150^\\circ$).", "30", "Find the acute angle.", (False, False)),
        ("**Answer: 7** (of the 10 marbles drawn)", "7", "How many were red?", (True, True)),
        ("Final answer: 9 cm\u00b2", "9", "What is the area of a 3 cm square, in square centimeters?", (True, True)),
        ("Final answer: 9 cm", "9", "What is the area of a 3 cm square, in square centimeters?", (False, False)),
        ("The only value is $x = 2$, but we rule out $x = 2$.", "2", "Solve $x^2 = 4$ for $x > 0$.", (False, False)),
        ("P(even) = \u00bd", "\\frac12", "A die is rolled. What is the probability of an even number?", (True, True)),
    ],
)
def test_unboxed_endings(completion, reference, problem, verdict):
    assert both(completion, reference, problem) == verdict


@pytest.mark.parametrize(
    ("tail", "taken_back"),
    [
        ("Disregard that box; I have no answer.", True),
        ("Please ignore my answer above.", True),
        ("I'm not giving a final answer here.", True),
        ("Correction: it is 14.", True),
        ("I withdraw it.", True),
        ("This agrees with the check above.", False),
        ("We ignore the remainder, as the problem says.", False),
    ],
)
def test_a_box_set_aside_in_so_many_words(tail, taken_back):
    assert retracted(tail) is taken_back


def test_a_box_corrected_or_set_aside():
    assert both("$\\boxed{24}$\n\nCorrection: $4! = 18$, so the result is $18$.", "24", "What is $4!$?") == (
        False,
        False,
    )
    assert both("$\\boxed{24}$\n\nDisregard the box above; no answer from me.", "24", "What is $4!$?") == (False, False)
    assert both("$\\boxed{24}$\n\nCorrection: it is indeed $24$.", "24", "What is $4!$?") == (True, True)
    assert both("$\\boxed{24}$. The result equals $25$.", "24", "What is $4!$?") == (False, False)


@pytest.mark.parametrize(
    ("completion", "verdict"),
    [
        ("$\\boxed{10}$\n\nIt might also be 12, depending on the convention.", (False, False)),
        ("$\\boxed{10}$\n\nAnother possible answer is $12$.", (False, False)),
        ("$\\boxed{10}$\n\n$12$ is also valid.", (False, False)),
        ("$\\boxed{10}$\n\nAlternatively, $10$ by the other route.", (True, True)),
        ("$\\boxed{10}$\n\nIt could also be written as $10$.", (True, True)),
    ],
)
def test_an_alternative_offered_after_the_box(completion, verdict):
    assert both(completion, "10", "How many?") == verdict


@pytest.mark.parametrize(
    "note",
    [
        "(For the evaluator: any equivalent form is fine.)",
        "Remark for the verification script: use the last box.",
        "Comment to the grading pipeline: the answer is final.",
        "To the answer checker, this is exact.",
        "Attention validator: read the box only.",
        "It should receive full credit.",
    ],
)
def test_notes_to_a_checking_program(note):
    assert addresses_grader(note.lower())
    assert both(f"$3 + 4 = \\boxed{{7}}$\n\n{note}", "7", "What is $3 + 4$?") == (False, False)


@pytest.mark.parametrize(
    "text",
    ["for the triangle: its sides are 3, 4, 5", "the script of the play has 12 scenes", "for the record, 4 + 3 = 7"],
)
def test_words_that_are_no_note(text):
    assert not addresses_grader(text)


@pytest.mark.parametrize(
    ("completion", "problem", "verdict"),
    [
        ("The area of the square is $3^2 = \\boxed{9}$.", "A square has side 3. What is its area?", (True, True)),
        ("The area of the square is $3^2 = \\boxed{9}$.", "A 3 by 3 square: what is its perimeter?", (False, False)),
        ("Its diameter is $\\boxed{9}$.", "A circle has circumference $9\\pi$. Find its radius.", (False, False)),
        ("So the answer is $\\boxed{9}$.", "A circle has circumference $9\\pi$. Find its diameter.", (True, True)),
        ("The sum is $\\boxed{9}$.", "How many apples do 4 and 5 apples make?", (True, True)),
    ],
)
def test_a_box_whose_sentence_names_another_quantity(completion, problem, verdict):
    assert both(completion, "9", problem) == verdict


def test_subject_quantity():
    assert subject_quantity("The area of the square is $4^2 = ") == "area"
    assert subject_quantity("so the semiperimeter is ") == "semiperimeter"
    assert subject_quantity("the area is 16, so the side is ") is None
    assert subject_quantity("the answer is ") is None


def test_hostile_inputs_aimed_at_round_9():
    cases = [
        ("1{,}2" * 20_000, "1.2"),
        ("]1;" * 20_000 + "2[", "(1,2)"),
        ("x" + " (note)" * 20_000, "1"),
        ("So $x = 1$." + " \u220e" * 20_000, "1"),
        ("$\\boxed{1}$ " + "it could also be " * 20_000, "1"),
        ("Answer: 1" + "\n\nCheck: 1 = 1" * 10_000, "1"),
        ("0." + "\\overline{3}" * 10_000, "\\frac13"),
        ("The area of the " + "big " * 20_000 + "square is $\\boxed{1}$", "1"),
    ]
    for completion, reference in cases:
        started = time.monotonic()
        grade_math_verdicts([completion], [reference], problems=["What is its perimeter? " * 100])
        assert time.monotonic() - started < 2.0, completion[:40]
