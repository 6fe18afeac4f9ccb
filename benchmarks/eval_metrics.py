"""Evaluation metrics: avg@k with its standard error, unbiased pass@k, suite averages.

avg@k (what CE-GPPO's Table 1 reports): sample k completions per problem, score each, average
the k scores per problem and then over problems. Its standard error is taken across problems
(the k samples of a problem are not independent draws of the benchmark).

pass@k (Chen et al. 2021, https://arxiv.org/abs/2107.03374): with n samples of which c are
correct, the unbiased estimate of "at least one of k draws (without replacement) is correct" is
1 - C(n-c, k) / C(n, k), computed as a stable product.

Suite average ("Avg" in the paper): the unweighted mean of the benchmarks' primary avg@k.
"""

import math
from collections.abc import Sequence


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem with `n` samples, `c` of them correct."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_at_k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    # C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k / i)
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def mean_and_stderr(values: Sequence[float], weights: Sequence[float] | None = None) -> tuple[float, float]:
    """(mean, standard error of the mean); weighted means use the ratio-estimator error."""
    count = len(values)
    if count == 0:
        raise ValueError("mean of no values")
    weights = [1.0] * count if weights is None else list(weights)
    total = sum(weights)
    shares = [w / total for w in weights]
    mean = sum(s * v for s, v in zip(shares, values))
    if count < 2:
        return mean, 0.0
    variance = sum(s * s * (v - mean) ** 2 for s, v in zip(shares, values)) * count / (count - 1)
    return mean, math.sqrt(variance)


def avg_at_k(scores: Sequence[Sequence[float]], weights: Sequence[float] | None = None) -> tuple[float, float]:
    """(avg@k, its standard error across problems); `scores[problem][sample]`."""
    return mean_and_stderr([sum(s) / len(s) for s in scores], weights)


def mean_pass_at_k(correct: Sequence[Sequence[bool]], k: int) -> tuple[float, float]:
    """(mean unbiased pass@k over problems, its standard error); `correct[problem][sample]`."""
    return mean_and_stderr([pass_at_k(len(c), sum(c), k) for c in correct])


def pass_k_values(k: int) -> list[int]:
    """The pass@j reported for k samples: powers of two below k, and k itself."""
    return sorted({2**i for i in range(k.bit_length()) if 2**i < k} | {k})


def suite_average(values: Sequence[float]) -> float:
    """The paper's "Avg": the unweighted mean over benchmarks."""
    if not values:
        raise ValueError("suite average of no benchmarks")
    return sum(values) / len(values)
