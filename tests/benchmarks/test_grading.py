"""The one math grader: golden equivalences, every shipped reference, extraction, time limits."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from benchmarks import extract_answer, get_benchmark, grade_math, grade_math_batch

MATH_BENCHMARKS = ("aime24", "aime25", "hmmt25", "math500", "amc23", "amc22_23")
PATHOLOGICAL = r"The answer is \boxed{9^{9^{9^{9}}}}"

EQUIVALENT = [
    ("46", "46"),
    ("The answer is 46", "46"),
    ("The answer is 46.", "46"),
    ("\\boxed{46}", "46"),
    ("First 3 + 4 = 7, then \\boxed{7} is wrong; finally \\boxed{46}.", "46"),
    ("\\boxed{025}", "25"),
    ("\\boxed{25}", "025"),
    ("\\boxed{27}", "27.0"),
    ("\\boxed{-4}", "-4.0"),
    ("\\boxed{123456789012345678901}", "123456789012345678901.0"),
    ("\\boxed{0.5}", "\\frac{1}{2}"),
    ("\\boxed{\\dfrac12}", "\\frac{1}{2}"),
    ("\\boxed{\\frac{\\sqrt2}{2}}", "\\frac{1}{\\sqrt{2}}"),
    ("\\boxed{\\frac{9}{\\sqrt{23}}}", "\\frac{9 \\sqrt{23}}{23}"),
    ("\\boxed{\\sqrt{95/24}}", "\\sqrt{\\frac{95}{24}}"),
    ("\\boxed{1-2/\\pi}", "1-\\frac{2}{\\pi}"),
    ("\\boxed{2^{25} \\times 26!}", "2^{25} \\cdot 26!"),
    ("\\boxed{(3,\\pi/2)}", "\\left( 3, \\frac{\\pi}{2} \\right)"),
    ("\\boxed{[2,5)}", "[2, 5)"),
    ("\\boxed{(-\\infty,2)\\cup(3,\\infty)}", "(-\\infty, 2) \\cup (3, \\infty)"),
    ("\\boxed{[-2,7]}", "x \\in [-2,7]"),
    ("\\boxed{C}", "\\text{(C)}"),
    ("\\boxed{\\text{Evelyn}}", "\\text{Evelyn}"),
    ("\\boxed{90}", "90^\\circ"),
    ("\\boxed{90^{\\circ}}", "90"),
    ("\\boxed{\\frac{270}{7}}", "\\frac{270}7\\text{ degrees}"),
    ("\\boxed{864}", "864 \\mbox{ inches}^2"),
    ("\\boxed{5.4}", "5.4 \\text{ cents}"),
    ("\\boxed{18.9}", "\\$18.90"),
    ("\\boxed{10080}", "10,\\!080"),
    ("\\boxed{5}", "x=5"),
    ("\\boxed{2x+3}", "y = 2x + 3"),
    ("\\boxed{7,5,3}", "3, 5, 7"),
    ("\\boxed{1+\\sqrt{19}, 1-\\sqrt{19}}", "1 \\pm \\sqrt{19}"),
    (
        "\\boxed{\\frac{-1-\\sqrt{17}}{2}, \\frac{-1+\\sqrt{17}}{2}}",
        "\\frac{-1+\\sqrt{17}}{2}, \\frac{-1-\\sqrt{17}}{2}",
    ),
    (
        "\\boxed{\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}}",
        "\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}",
    ),
    ("so $x = 3$ and finally $y=7$", "7"),
]

NOT_EQUIVALENT = [
    ("47", "46"),
    ("", "46"),
    ("I don't know.", "46"),
    ("\\boxed{46}", "47"),
    ("\\boxed{-5}", "5"),
    ("\\boxed{27.5}", "27.0"),
    ("\\boxed{[2,5]}", "[2, 5)"),
    ("\\boxed{\\text{(B)}}", "\\text{(C)}"),
    ("\\boxed{\\text{Navin}}", "\\text{Evelyn}"),
    ("\\boxed{1/3}", "0.33"),
    ("\\boxed{2}", "\\sqrt{2}"),
    ("\\boxed{(3, \\pi)}", "\\left( 3, \\frac{\\pi}{2} \\right)"),
    ("\\boxed{3}", "3, 5, 7"),
    ("\\boxed{46} and then \\boxed{47}", "46"),
    ("\\boxed{123456789012345678902}", "123456789012345678901.0"),
]


@pytest.mark.parametrize(("completion", "reference"), EQUIVALENT)
def test_equivalent_answers(completion, reference):
    assert grade_math(completion, reference) is True


@pytest.mark.parametrize(("completion", "reference"), NOT_EQUIVALENT)
def test_non_equivalent_answers(completion, reference):
    assert grade_math(completion, reference) is False


@pytest.mark.parametrize("name", MATH_BENCHMARKS)
def test_every_reference_matches_itself_boxed(name, data_dir):
    rows = get_benchmark(name).load(data_dir)
    completions = [f"Working through the problem carefully ... \\boxed{{{row['answer']}}}" for row in rows]
    graded = grade_math_batch(completions, [row["answer"] for row in rows])
    assert [row["answer"] for row, ok in zip(rows, graded) if not ok] == []


def test_extract_answer():
    assert extract_answer("so \\boxed{\\frac{1}{2}}.") == "\\frac{1}{2}"
    assert extract_answer("\\boxed{a} then \\boxed{\\sqrt{x^{2}}}") == "\\sqrt{x^{2}}"
    assert extract_answer("46") == "46"
    assert extract_answer("The answer is 46.") == "46"
    assert extract_answer("no maths here") is None


def test_batch_checks_lengths():
    with pytest.raises(ValueError, match="2 completions but 1 references"):
        grade_math_batch(["1", "2"], ["1"])


def test_pathological_input_main_thread():
    started = time.monotonic()
    assert grade_math(PATHOLOGICAL, "5") is False
    assert time.monotonic() - started < 8


def test_pathological_input_worker_thread():
    outcome = {}

    def grade():
        started = time.monotonic()
        outcome["graded"] = grade_math_batch([PATHOLOGICAL, "\\boxed{\\frac12}", "12"], ["5", "0.5", "12"], 1.0)
        outcome["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=grade)
    thread.start()
    thread.join(timeout=60)
    assert outcome["graded"] == [False, True, True]
    assert outcome["seconds"] < 30  # includes the worker's start-up (imports)


def test_pathological_input_subprocess():
    code = (
        "import time; from benchmarks import grade_math_batch; t = time.monotonic(); "
        f"print(grade_math_batch([{PATHOLOGICAL!r}, '\\\\boxed{{2}}'], ['5', '2'], 1.0), time.monotonic() - t)"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    verdict, seconds = done.stdout.rsplit(" ", 1)
    assert verdict == "[False, True]"
    assert float(seconds) < 4


def test_outer_alarm_survives_grading():
    import signal

    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        assert grade_math("\\boxed{\\frac{1}{2}}", "0.5")
        time.sleep(0.7)
        assert fired == [True]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
