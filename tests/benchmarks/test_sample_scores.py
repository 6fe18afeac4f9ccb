"""Per-problem maj@k and pass^k from samples.jsonl records alone (hand-made records, worked by hand)."""

import pytest

from benchmarks.sample_scores import problem_majority, problem_pass_hat


def record(benchmark, problem, sample, correct, answer_class=...):
    line = {"benchmark": benchmark, "id": problem, "sample": sample, "correct": correct}
    if answer_class is not ...:
        line["answer_class"] = answer_class
    return line


SAMPLES = [
    # aime26 problem 7 (an integer id, as some files have): samples out of order; classes 1, 0, 1 -> the wrong 1 wins
    record("aime26", 7, 2, False, 1),
    record("aime26", 7, 0, True, 0),
    record("aime26", 7, 1, False, 1),
    # aime26 problem "8": all right
    *(record("aime26", "8", i, True, 0) for i in range(3)),
    # humaneval: no answers to compare, no maj@k; 2 of 3 pass
    *(record("humaneval", "HumanEval/0", i, i < 2) for i in range(3)),
]


def test_majority_per_problem_and_only_where_answers_were_compared():
    assert problem_majority(SAMPLES) == {"aime26": {"7": 0.0, "8": 1.0}}


def test_pass_hat_per_problem():
    assert problem_pass_hat(SAMPLES) == {"aime26": {"7": 0.0, "8": 1.0}, "humaneval": {"HumanEval/0": 0.0}}
    two = problem_pass_hat(SAMPLES, 2)  # C(c, 2) / C(3, 2): c = 1 -> 0, c = 3 -> 1, c = 2 -> 1/3
    assert two["aime26"] == {"7": 0.0, "8": 1.0} and two["humaneval"]["HumanEval/0"] == pytest.approx(1 / 3)
