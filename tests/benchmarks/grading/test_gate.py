"""The grader's gate (`benchmarks.grading.math_answer.plain_box`) decides as the full reading does.

The gate answers a completion at once when none of the readings' triggers is present (hidden
markup, another box, a statement's value or a cue word before the box, anything after it). Here
every completion of every in-repo set (the graded set, the reward-hack probes and held-out sets of
rounds 2 to 4) and seeded random perturbations of them are read both ways, gated and in full,
and must give the same answer (text, rule, spans, other answers, qualifiers) and the same
verdict in both grading modes.
"""

import random

import pytest

from benchmarks.grading import math_answer
from benchmarks.grading.math_answer import extract, plain_box
from benchmarks.grading.math_check import check_unbounded
from benchmarks.grading.math_commit import CLOSING, VALUE_CHARS, may_state
from benchmarks.grading.math_hidden import HIDING_COMMANDS, HIDING_MARKS, hiding_marks
from benchmarks.grading.math_retraction import RETRACTION_TRIGGERS
from benchmarks.grading.probes import (
    load_graded_set,
    load_holdout,
    load_holdout_r3,
    load_probes,
    load_probes_r3,
)

REASONING = "Let us think step by step. We expand, simplify and check each case carefully. " * 25
# Short texts that trigger one reading each (or none), inserted at random places by the perturbations.
HIDDEN = ("%", "% \\boxed{9}\n", "`", "```x```", "<", "<span hidden>", "</span>", "<!-- 9 -->", "~~", "]: #")
COMMANDS = ("\\phantom{", "\\iffalse", "\\begin{comment}", "\\end{comment}", "\\def", "\\color{white}", "\\sout{")
COMMANDS += ("\\let", "\\le ", "\\neq ", "]:")
BOXES_AND_VALUES = ("\\boxed{7}", "\\fbox{7}", "box", "7", "$", "$7$", "*", "**8**", "\u2212", "\u00e9", "'")
CUE_WORDS = ("not ", "isn't ", "wrong", "wait", "Wait, that is wrong.", "oops", "at most ", "roughly ", "about ")
ADDRESSED = ("grader", "Note to the grader: ", "system", "the answer is 7", "Final: 7", "either ", "or ", "mistake")
HARMLESS = ("cm", " units", "\\text{ cm}", "\\,", "\\frac{1}{2}", "{", "}", ".", "!", ")", "\n", " ", "first guess")
SNIPPETS = HIDDEN + COMMANDS + BOXES_AND_VALUES + CUE_WORDS + ADDRESSED + HARMLESS


def _sets(data_dir) -> list[tuple[str, str, str | None]]:
    """(completion, reference, problem) of every in-repo set."""
    rows = load_graded_set(data_dir) + load_probes() + load_holdout() + load_probes_r3() + load_holdout_r3()
    return [(row["completion"], row["reference"], row["problem"]) for row in rows]


def _plain_cases() -> list[tuple[str, str, str | None]]:
    """Completions shaped as the common case (the benchmark's), each of which the gate should pass."""
    cases = []
    matrix = "\\begin{pmatrix} -1/3 \\\\ 2/3 \\end{pmatrix}"
    answers = (
        "42",
        "-7",
        "\\frac{14}{3}",
        "\\dfrac{\\sqrt{3}}{2}",
        "2\\sqrt{2}",
        "x^{2}+1",
        "(1, 2)",
        "(-\\infty, 0]",
        matrix,
    )
    for answer in answers:
        for prefix in ("", REASONING, "We simplify carefully.\n\n"):
            cases.append((f"{prefix}The final answer is \\boxed{{{answer}}}.", answer, None))
    return cases


def _perturbed(texts: list[str], count: int, seed: int) -> list[str]:
    """`count` texts, each one of `texts` with one to three snippets inserted at random places."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            where = rng.randrange(len(text) + 1)
            if rng.random() < 0.5 and "\\boxed{" in text:  # near the box, where the readings look
                box = text.rfind("\\boxed{")
                where = max(0, min(len(text), box + rng.randint(-120, 40)))
            text = text[:where] + rng.choice(SNIPPETS) + text[where:]
        out.append(text)
    return out


def _fields(answer) -> tuple | None:
    if answer is None:
        return None
    return (str(answer), answer.rule, answer.spans, answer.end, answer.others, answer.qualifiers, answer.pending)


def _assert_same_reading(texts: list[str]) -> int:
    """The gated and the full reading agree on each text; returns how many the gate answered."""
    gated = 0
    for text in texts:
        plain = plain_box(text)
        if plain is None:
            continue  # `extract` reads it in full either way
        gated += 1
        for fallback in ("statement", "boxed"):
            for read_head in (True, False):
                for truncated in (True, False):
                    full = extract(text, fallback, truncated, read_head, gate=False)
                    fast = extract(text, fallback, truncated, read_head)
                    assert _fields(fast) == _fields(full), text
    return gated


@pytest.fixture(scope="module")
def in_repo_sets(data_dir) -> list[tuple[str, str, str | None]]:
    return _sets(data_dir)


def test_the_gate_reads_every_in_repo_completion_as_the_full_reading(in_repo_sets):
    _assert_same_reading([completion for completion, _, _ in in_repo_sets])


def test_the_gate_passes_the_common_case_and_reads_it_alike():
    cases = _plain_cases()
    assert _assert_same_reading([text for text, _, _ in cases]) == len(cases)
    assert plain_box(REASONING + "The final answer is \\boxed{\\frac{14}{3}}.") == "\\frac{14}{3}"
    assert plain_box("We find \\boxed{\\frac{1}{\\sqrt{2}}}.").spans == ("\\boxed{\\frac{1}{\\sqrt{2}}}",)


@pytest.mark.parametrize(
    "text",
    [
        "% hidden\nThe answer is \\boxed{5}.",  # a comment
        "The answer is \\boxed{5}. Wait, that is wrong.",  # words after the box
        "It is not \\boxed{5}.",  # a cue word in the box's clause
        "First $x = 4$, then \\boxed{5}.",  # a value a statement could give before it
        "\\boxed{4} and \\boxed{5}.",  # another box
        "\\phantom{\\boxed{4}} The answer is \\boxed{5}.",  # a hiding command
        "Note to the grader: \\boxed{5}.",  # a note to the grader
        "The answer is \\boxed{5",  # not closed
    ],
)
def test_each_trigger_sends_the_completion_to_the_full_reading(text):
    assert plain_box(text) is None


def test_seeded_perturbations_of_every_set_read_alike(in_repo_sets):
    texts = [completion for completion, _, _ in in_repo_sets] + [text for text, _, _ in _plain_cases()]
    plain_texts = [text for text, _, _ in _plain_cases()]
    # Perturbations of the plain cases keep many inside the gate (the equivalence is exercised);
    # those of the sets mostly leave it (the gate must then step aside).
    gated = _assert_same_reading(_perturbed(plain_texts, 3000, seed=29))
    assert gated > 300
    _assert_same_reading(_perturbed(texts, 2000, seed=30))


def test_verdicts_in_both_modes_are_the_same_gated_and_in_full(in_repo_sets, monkeypatch):
    gated_rows = [row for row in in_repo_sets + _plain_cases() if plain_box(row[0]) is not None]
    perturbed = _perturbed([text for text, _, _ in _plain_cases()], 400, seed=31)
    gated_rows += [(text, "42", None) for text in perturbed if plain_box(text) is not None]
    assert len(gated_rows) > 50
    fast = [check_unbounded(completion, reference, problem) for completion, reference, problem in gated_rows]
    monkeypatch.setattr(math_answer, "plain_box", lambda text: None)
    full = [check_unbounded(completion, reference, problem) for completion, reference, problem in gated_rows]
    for row, gated_verdict, full_verdict in zip(gated_rows, fast, full):
        assert (gated_verdict.lenient, gated_verdict.strict, gated_verdict.reason) == (
            full_verdict.lenient,
            full_verdict.strict,
            full_verdict.reason,
        ), row[0]
        assert _fields(gated_verdict.extracted) == _fields(full_verdict.extracted)


def test_the_triggers_cover_what_the_gate_leaves_out():
    """After the box the gate allows only CLOSING, where no retraction can start; the commands a
    LaTeX answer uses are no hiding command."""
    assert all(RETRACTION_TRIGGERS and not char.isalpha() for char in CLOSING)
    for command in ("\\frac", "\\dfrac", "\\tfrac", "\\sqrt", "\\pi", "\\cdot", "\\left(", "\\infty", "\\text"):
        assert HIDING_COMMANDS.search(command) is None, command


def test_the_unrolled_trigger_tests_are_their_trigger_sets():
    plain = "We expand, simplify and check each case carefully: ~ ] and ] : are no marks."
    assert not hiding_marks(plain) and all(hiding_marks(plain + mark) for mark in HIDING_MARKS)
    assert not may_state(plain) and all(may_state(plain + char) for char in VALUE_CHARS)
