"""maj@k's answer classes: hand-worked votes, the grader asked only when the vote can turn on it, ties."""

from fractions import Fraction

import pytest

from benchmarks.answer_classes import answer_classes
from benchmarks.eval_metrics import majority_correct


class CountingSame:
    """A stand-in grader: two answers are the same when they are the same number; counts its calls."""

    def __init__(self):
        self.calls: list[tuple[str, str]] = []

    def __call__(self, first: str, other: str) -> bool:
        self.calls.append((first, other))
        return Fraction(first.replace(" ", "")) == Fraction(other.replace(" ", ""))


def vote(answers, correct):
    same = CountingSame()
    classes = answer_classes(answers, correct, same)
    return classes, majority_correct(classes, correct), same.calls


def test_correct_samples_share_a_class_and_no_answer_abstains():
    classes, won, calls = vote(["42", "41", "42.0", "7", None], [True, False, True, False, False])
    # c = 2 correct, w = 2 wrong answers: the grader compares the two wrong groups (41 vs 7), once
    assert classes == [0, 1, 0, 2, None]
    assert won and calls == [("41", "7")]


def test_the_grader_is_not_asked_when_the_vote_cannot_turn_on_it():
    classes, won, calls = vote(["5", "5", "6"], [True, True, False])  # c = 2 > w = 1: the right answer wins
    assert (classes, won, calls) == ([0, 0, 1], True, [])
    classes, won, calls = vote(["1/2", "0.5", "3"], [False, False, False])  # c = 0: nothing right can win
    assert (classes, won, calls) == ([0, 1, 2], False, [])


def test_equal_wrong_answers_merge_and_outvote_the_right_one():
    # 12 is right twice; 1/2 and 0.5 are the same wrong value three times: the wrong answer wins 3 to 2.
    # Grouped by text alone the right answer would have tied 0.5 (2 to 2) and won the tie.
    classes, won, calls = vote(["12", "1/2", "0.5", "12", "0.5"], [True, False, False, True, False])
    assert classes == [0, 1, 1, 0, 1]
    assert not won and calls == [("1/2", "0.5")]


def test_identical_texts_up_to_blanks_need_no_grader():
    classes, _, calls = vote(["3", "1 / 2", "1/2"], [True, False, False])
    assert classes == [0, 1, 1] and calls == []


@pytest.mark.parametrize(
    ("answers", "correct", "won"),
    [
        (["3", "4", "4", "3"], [True, False, False, True], True),  # 2-2: the class seen first (right) wins
        (["4", "3", "3", "4"], [False, True, True, False], False),  # 2-2: the class seen first (wrong) wins
    ],
)
def test_ties_go_to_the_answer_seen_first(answers, correct, won):
    classes, result, _ = vote(answers, correct)
    assert classes == [0, 1, 1, 0] and result is won


def test_no_answer_at_all_is_not_solved_and_lengths_must_match():
    assert vote([None, None], [False, False])[:2] == ([None, None], False)
    with pytest.raises(ValueError, match="2 answers but 1 verdicts"):
        answer_classes(["1", "2"], [True], CountingSame())
