"""Small statistics for paired-seed comparisons: means, spreads and Student-t 95% intervals.

Paired seeds: run i of every algorithm uses seed i (same warm start, same prompts per step), so
the difference X_i - Y_i removes the noise the two runs share, and its mean gets a t-interval with
n - 1 degrees of freedom (n = the number of seeds both sides finished).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from scipy.stats import t as student_t


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    n: int

    def __str__(self) -> str:
        if self.n < 2:
            return f"{self.mean:+.4f} (1 seed: no interval)"
        return f"{self.mean:+.4f} [{self.low:+.4f}, {self.high:+.4f}]"


def t_interval(values: list[float], level: float = 0.95) -> Interval:
    """Mean of `values` with its two-sided Student-t confidence interval (none for one value)."""
    if not values:
        raise ValueError("an interval of no values")
    mean = statistics.fmean(values)
    if len(values) < 2:
        return Interval(mean, -math.inf, math.inf, len(values))
    half = student_t.ppf(0.5 + level / 2, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return Interval(mean, mean - half, mean + half, len(values))


def paired_differences(x: dict[int, float], y: dict[int, float]) -> list[float]:
    """x[seed] - y[seed] over the seeds both have, in seed order."""
    return [x[s] - y[s] for s in sorted(set(x) & set(y))]


def spread(values: list[float]) -> float:
    """Sample standard deviation (0 for fewer than two values)."""
    return statistics.stdev(values) if len(values) >= 2 else 0.0
