"""Evaluation metrics: avg@k with its standard error, unbiased pass@k and pass^k, maj@k, suite averages.

avg@k (what CE-GPPO's Table 1 reports): sample k completions per problem, score each, average
the k scores per problem and then over problems. Its standard error is taken across problems
(the k samples of a problem are not independent draws of the benchmark).

pass@k (Chen et al. 2021, https://arxiv.org/abs/2107.03374): with n samples of which c are
correct, the unbiased estimate of "at least one of k draws (without replacement) is correct" is
1 - C(n-c, k) / C(n, k), computed as a stable product.

pass^k (Yao et al. 2024, tau-bench, https://arxiv.org/abs/2406.12045): "all of k draws are correct", the
reliability counterpart of pass@k. With n samples of which c are correct its unbiased estimate is
C(c, k) / C(n, k) (k draws without replacement, all among the c correct ones). pass^1 = pass@1 = avg@n
for pass/fail scores; pass^k falls with k unless a problem is always or never solved.

maj@k (also cons@k, self-consistency: Wang et al. 2022, https://arxiv.org/abs/2203.11171): the k samples
vote with their extracted answers and the problem counts as solved when the most frequent answer is the
right one. Which answers are "the same" is the grader's business (`benchmarks.answer_classes` numbers
them); here a vote is a class number per sample (None: the sample gave no answer and abstains). Ties
go to the class whose first sample comes first (as collections.Counter.most_common orders them): the
k samples are exchangeable draws, so this is a uniformly random tie-break in expectation, and it is
deterministic given samples.jsonl. A problem where every sample abstains is not solved. maj@k is
reported for the k samples drawn, without a subset estimator (unlike pass@k and pass^k).

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


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k for one problem with `n` samples, `c` of them correct: C(c, k) / C(n, k)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_hat_k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    # C(c, k) / C(n, k) = prod_{i=0}^{k-1} (c - i) / (n - i); 0 as soon as c < k
    return math.prod((c - i) / (n - i) for i in range(k))


def majority_class(votes: Sequence[int | None]) -> int | None:
    """The most frequent class among `votes` (None abstains); ties go to the class seen first."""
    counts: dict[int, int] = {}
    for vote in votes:
        if vote is not None:
            counts[vote] = counts.get(vote, 0) + 1
    # dicts keep insertion order and max() returns the first of equal maxima: the earliest class wins a tie
    return max(counts, key=counts.__getitem__) if counts else None


def majority_correct(votes: Sequence[int | None], correct: Sequence[bool]) -> bool:
    """maj@k of one problem: the winning class (`majority_class`) is a correct one. `correct[i]` is sample
    i's verdict; every sample of a class shares it (the grader's classes), so the first one decides."""
    if len(votes) != len(correct):
        raise ValueError(f"{len(votes)} votes but {len(correct)} verdicts")
    winner = majority_class(votes)
    return winner is not None and next(c for v, c in zip(votes, correct) if v == winner)


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


def mean_pass_hat_k(correct: Sequence[Sequence[bool]], k: int) -> tuple[float, float]:
    """(mean unbiased pass^k over problems, its standard error); `correct[problem][sample]`."""
    return mean_and_stderr([pass_hat_k(len(c), sum(c), k) for c in correct])


def pass_k_values(k: int) -> list[int]:
    """The pass@j reported for k samples: powers of two below k, and k itself."""
    return sorted({2**i for i in range(k.bit_length()) if 2**i < k} | {k})


def suite_average(values: Sequence[float]) -> float:
    """The paper's "Avg": the unweighted mean over benchmarks."""
    if not values:
        raise ValueError("suite average of no benchmarks")
    return sum(values) / len(values)
