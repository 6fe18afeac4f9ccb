"""Metrics: unbiased pass@k against brute force, avg@k with its standard error, suite average."""

import itertools
import math

import pytest

from benchmarks.eval_metrics import (
    avg_at_k,
    mean_and_stderr,
    mean_pass_at_k,
    pass_at_k,
    pass_k_values,
    suite_average,
)


def brute_force_pass_at_k(n: int, c: int, k: int) -> float:
    """Fraction of the k-subsets of n samples (c correct) that hold a correct one."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(samples[i] for i in subset) for subset in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_matches_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute_force_pass_at_k(n, c, k), abs=1e-12)


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
