"""Metrics: unbiased pass@k and pass^k against brute force, maj@k's vote, avg@k and its standard error, suite mean."""

import itertools
import math

import pytest

from benchmarks.eval_metrics import (
    avg_at_k,
    majority_class,
    majority_correct,
    mean_and_stderr,
    mean_pass_at_k,
    mean_pass_hat_k,
    pass_at_k,
    pass_hat_k,
    pass_k_values,
    suite_average,
)


def enumerated(n: int, c: int, k: int, rule) -> float:
    """Fraction of the k-subsets of n samples (c correct) whose verdicts satisfy `rule` (any: pass@k,
    all: pass^k)."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(rule(samples[i] for i in subset) for subset in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 9))
@pytest.mark.parametrize(("estimate", "rule"), [(pass_at_k, any), (pass_hat_k, all)])
def test_pass_at_k_and_pass_hat_k_match_enumeration(n, estimate, rule):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert estimate(n, c, k) == pytest.approx(enumerated(n, c, k, rule), abs=1e-12)


def test_pass_at_k_edges_and_errors():
    assert pass_at_k(16, 4, 1) == pytest.approx(0.25)
    assert pass_at_k(100, 0, 50) == 0.0 and pass_at_k(10, 1, 10) == 1.0
    for bad in [(4, 5, 1), (4, 1, 0), (4, 1, 5), (4, -1, 1)]:
        with pytest.raises(ValueError):
            pass_at_k(*bad)


def test_avg_at_k_and_standard_error():
    scores = [[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]]  # per-problem means 0.5, 1, 0
    mean, stderr = avg_at_k(scores)
    assert mean == pytest.approx(0.5)
    assert stderr == pytest.approx(math.sqrt(0.25 / 3))  # sample std 0.5 over sqrt(3)
    assert avg_at_k([[1, 0]]) == (0.5, 0.0)


def test_weighted_mean_is_the_micro_average():
    fractions, counts = [1.0, 0.5, 0.0], [1, 2, 3]  # 1 + 1 + 0 of 6 instructions followed
    mean, _ = mean_and_stderr(fractions, counts)
    assert mean == pytest.approx(2 / 6)


def test_mean_pass_at_k_and_reported_ks():
    correct = [[True, False, False, False], [False] * 4]
    assert mean_pass_at_k(correct, 4)[0] == pytest.approx(0.5)
    assert mean_pass_at_k(correct, 1)[0] == pytest.approx(0.125)
    assert pass_k_values(1) == [1] and pass_k_values(8) == [1, 2, 4, 8] and pass_k_values(6) == [1, 2, 4, 6]


def test_suite_average_is_unweighted():
    assert suite_average([0.2, 0.4, 0.9]) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        suite_average([])


def test_pass_hat_k_by_hand_and_errors():
    assert pass_hat_k(4, 3, 2) == pytest.approx(3 / 6)  # C(3,2) / C(4,2)
    assert pass_hat_k(4, 3, 1) == pytest.approx(0.75) and pass_hat_k(4, 3, 4) == 0.0 and pass_hat_k(4, 4, 4) == 1.0
    correct = [[True, True, True, False], [True] * 4]
    assert mean_pass_hat_k(correct, 2)[0] == pytest.approx((0.5 + 1.0) / 2)
    for bad in [(4, 5, 1), (4, 1, 0), (4, 1, 5)]:
        with pytest.raises(ValueError):
            pass_hat_k(*bad)


def test_majority_vote_and_its_tie_rule():
    assert majority_class([None, 2, 1, 1, 2]) == 2  # 2 and 1 tie at two votes: 2 was seen first
    assert majority_class([None, 0, 1, 1]) == 1 and majority_class([None, None]) is None
    assert majority_correct([1, 0, 0], [False, True, True]) is True
    assert majority_correct([1, 0, 0, 1], [False, True, True, False]) is False  # tie: class 1 came first
    assert majority_correct([None, None], [False, False]) is False
    with pytest.raises(ValueError, match="2 votes but 1 verdicts"):
        majority_correct([0, 1], [True])
