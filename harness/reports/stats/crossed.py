"""The variance of a crossed (seeds x problems) mean and its t interval: the estimator behind every difference.

Per benchmark a seeds x problems block D (S x n; a difference of two rows, or one row) has the two-way
mean squares MS_seed (S - 1 df), MS_problem (n - 1) and MS_resid ((S-1)(n-1)), and

    Var(mean D) = var(u)/S + var(v)/n + var(r)/(S n)        seed shift, problem effect, residual
    estimate    = [MS_problem + max(0, MS_seed - MS_resid)] / (S n)

(unbiased but for the truncation at 0 of a seed term estimated negative). Each piece is a `Term`: its
value in the estimate and the mean squares it is made of, with their degrees of freedom.

Degrees of freedom (`interval`). Satterthwaite's rule, nu = V^2 / sum(m_j^2 / df_j), with two changes
that keep the level in small designs:
- every mean square the estimate READ counts in the denominator, also the seed and residual mean squares
  of a seed term estimated at zero. Dropping them (the previous rule) made nu jump from about S - 1 to
  n - 1 exactly in the tables whose seed means happened to lie close, and with 3 seeds those tables
  rejected about 14% of true nulls. Here nu moves continuously as MS_seed passes MS_resid.
- nu is bounded below by the smallest df among those mean squares (S - 1, or n - 1 with one seed): what
  the design supports. Subtracting MS_resid could otherwise push nu far below 1 (an interval of
  +-1e153 points on a 3 x 3 table).
The interval is then cut to the scale: a difference of accuracies lies in [-100, +100] points.

Measured on tables with known truth (harness.reports.stats.simulate; docs/statistics.md has the grid):
coverage, type-I error, Holm's family-wise error and the plan's power.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.stats import t as student_t


class Term(NamedTuple):
    value: float  # its share of the estimated variance (fraction^2)
    mean_squares: tuple[tuple[float, int], ...]  # (mean square on the variance's scale, its df) it is made of


def problem_terms(vectors: list[np.ndarray], J: int) -> list[Term]:
    """var(seed-averaged per-problem values)/n per benchmark (MS_problem / (S n), divided by J^2 for an Avg
    over J benchmarks): var(v)/n + var(r)/(S n)."""
    terms = []
    for v in vectors:
        if len(v) >= 2:
            value = float(v.var(ddof=1)) / len(v) / J**2
            terms.append(Term(value, ((value, len(v) - 1),)))
    return terms


def seed_term(blocks: list[np.ndarray]) -> list[Term]:
    """var(u)/S from seeds x problems blocks (one per benchmark, the same seeds): the spread of the per-seed
    Avg carries the residual's share too (MS_resid / n per benchmark), which is taken out; estimated below
    zero it adds nothing, but its mean squares still count in the degrees of freedom (module docstring)."""
    J, S = len(blocks), blocks[0].shape[0]
    if S < 2:
        return []
    residuals = []
    for block in blocks:
        n = block.shape[1]
        if n >= 2:  # two-way residual mean square, on the scale of the variance of the mean
            r = block - block.mean(axis=0) - block.mean(axis=1, keepdims=True) + block.mean()
            residuals.append((float((r**2).sum()) / ((S - 1) * (n - 1)) / n / J**2 / S, (S - 1) * (n - 1)))
    seed_square = float(np.mean([b.mean(axis=1) for b in blocks], axis=0).var(ddof=1)) / S
    value = max(0.0, seed_square - sum(m for m, _ in residuals))
    return [Term(value, ((seed_square, S - 1), *residuals))]


def degrees_of_freedom(terms: list[Term]) -> float:
    """Satterthwaite over every mean square read, bounded below by the smallest of their df."""
    variance = sum(t.value for t in terms)
    squares = [(m, df) for t in terms for m, df in t.mean_squares]
    spread = sum(m * m / df for m, df in squares)
    floor = float(min(df for _, df in squares))
    return max(floor, variance**2 / spread) if spread > 0 else math.inf


def interval(estimate: float, terms: list[Term], level: float) -> tuple[float, float, float, float, float]:
    """(low, high, two-sided p, SE, nu): estimate +- t_nu SE cut to [-1, 1], and the same t test's p-value
    (p < 1 - level exactly when the uncut interval excludes 0)."""
    variance = sum(t.value for t in terms)
    if variance <= 0:
        return estimate, estimate, 1.0 if estimate == 0 else 0.0, 0.0, math.inf
    nu, se = degrees_of_freedom(terms), math.sqrt(variance)
    half = float(student_t.ppf(0.5 + level / 2, nu)) * se
    p_value = float(2 * student_t.sf(abs(estimate) / se, nu))
    return max(-1.0, estimate - half), min(1.0, estimate + half), p_value, se, nu
