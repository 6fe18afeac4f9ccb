"""The variance of a crossed (seeds x problems) mean and its interval: the estimator behind every difference.

Per benchmark a seeds x problems block D (S x n; a difference of two rows, or one row) has the two-way
mean squares MS_seed (S - 1 df), MS_problem (n - 1) and MS_resid ((S-1)(n-1)). With D = Delta + u[s] +
v[i] + r[s, i] (seed shift, problem effect, residual: interaction plus the k samples' noise),

    Var(mean D) = var(u)/S + var(v)/n + var(r)/(S n)
    estimate    = MS_seed/(S n)  +  max(0, MS_problem - MS_resid)/(S n)
                  seed term: the spread      problem term: the spread of per-problem means net of
                  of the per-seed means,     the residual they carry; its mean squares have n - 1 and
                  never truncated            (S-1)(n-1) df, so the subtraction is well determined

Both terms are unbiased (E MS_seed = n var(u) + var(r), E MS_problem = S var(v) + var(r)) but for the
truncation at 0. A `Term` holds the signed mean squares (already on the scale of the variance of the
mean) it is made of, each with its degrees of freedom; an Avg over J benchmarks has one seed term (from
the per-seed Avg) and one problem term per benchmark, divided by J^2.

The interval is not a t with a plugged-in Satterthwaite df: with 3 seeds that df jumps (to n - 1 when
the seed term looks small by chance, exactly when the variance is underestimated) and can fall below
1. Instead each mean square m with df f is replaced by its fiducial draw m f / chi2_f (a generalized
pivotal quantity), the terms recomputed (truncated at 0 as above) draw by draw, and

    P(mean D - Delta <= x) = E_draws[ Phi(x / sqrt(V*)) ]      (a normal scale mixture)

gives the interval (x solving the level) and the p-value (the same mixture at the estimate, so p < 1 -
level exactly when the interval excludes 0). With a single mean square this mixture IS Student's t with
f df (one seed: the paired t over problems; seeds dominating: the t over the S seed means): the design's
own df are the floor, never plugged in. The draws are fixed (stratified chi-square quantiles in a fixed
order), so an interval is reproducible. The interval is cut to the scale, [-100, +100] points.

Measured on tables with known truth: harness.reports.stats.calibration; docs/statistics.md has the grid.
"""

from __future__ import annotations

import math
from functools import cache
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr
from scipy.stats import chi2

DRAWS = 2048  # fiducial draws per mean square: quantile error well below 0.1% of the half-width


class Term(NamedTuple):
    mean_squares: tuple[tuple[float, int, int], ...]  # (mean square on the variance-of-the-mean scale, df, sign)

    def value(self) -> float:
        return max(0.0, sum(sign * m for m, _, sign in self.mean_squares))


def residual_square(block: np.ndarray, J: int = 1) -> tuple[float, int, int]:
    """MS_resid / (S n J^2) of a seeds x problems block, its df, sign -1 (what a problem term takes out)."""
    S, n = block.shape
    r = block - block.mean(axis=0) - block.mean(axis=1, keepdims=True) + block.mean()  # two-way residual
    return float((r**2).sum()) / ((S - 1) * (n - 1)) / (S * n * J**2), (S - 1) * (n - 1), -1


def problem_term(vector: np.ndarray, J: int, residuals: list[tuple[float, int, int]]) -> list[Term]:
    """var(v)/n from seed-averaged per-problem values (MS_problem / (S n J^2)) net of the `residuals` they
    carry (one per side with 2+ seeds); none with fewer than two problems."""
    if len(vector) < 2:
        return []
    spread = float(vector.var(ddof=1)) / len(vector) / J**2
    return [Term(((spread, len(vector) - 1, +1), *residuals))]


def seed_term(blocks: list[np.ndarray]) -> list[Term]:
    """var(u)/S + var(r)/(S n) from blocks with the same seeds (one per benchmark): MS_seed/(S n) of the
    per-seed Avg, S - 1 df; none with one seed (a 1-seed interval cannot measure seed variation)."""
    S = blocks[0].shape[0]
    if S < 2:
        return []
    seed_means = np.mean([b.mean(axis=1) for b in blocks], axis=0)  # [S]: per-seed Avg
    return [Term(((float(seed_means.var(ddof=1)) / S, S - 1, +1),))]


@cache
def fiducial(df: int, position: int) -> np.ndarray:
    """[DRAWS] draws of chi2_df / df: stratified quantiles in an order fixed by (df, position), so that two
    mean squares of a term (or of two terms) are drawn independently."""
    quantiles = chi2.ppf((np.arange(DRAWS) + 0.5) / DRAWS, df) / df
    return np.random.default_rng([df, position]).permutation(quantiles)


def _variance_draws(terms: list[Term]) -> np.ndarray:
    """[DRAWS] fiducial draws of the variance: every mean square m replaced by m / (chi2_f / f)."""
    total, position = np.zeros(DRAWS), 0
    for term in terms:
        draw = np.zeros(DRAWS)
        for m, df, sign in term.mean_squares:
            draw += sign * m / fiducial(df, position)
            position += 1
        total += np.maximum(draw, 0.0)
    return total


def interval(estimate: float, terms: list[Term], level: float) -> tuple[float, float, float, float, float]:
    """(low, high, two-sided p, SE, df): the mixture interval of the module docstring, cut to [-1, 1]. SE is
    the square root of the point estimate of the variance; df the Satterthwaite value at that estimate
    over every mean square read (reported, not used)."""
    variance = sum(t.value() for t in terms)
    if variance <= 0:
        return estimate, estimate, 1.0 if estimate == 0 else 0.0, 0.0, math.inf
    sd = np.sqrt(np.maximum(_variance_draws(terms), 1e-30))  # [DRAWS]
    target = 0.5 + level / 2
    half = brentq(lambda x: float(ndtr(x / sd).mean()) - target, 0.0, 1e3 * math.sqrt(variance) + 1.0, xtol=1e-10)
    p_value = float(2 * ndtr(-abs(estimate) / sd).mean())
    squares = [(m, df) for t in terms for m, df, _ in t.mean_squares]
    df = variance**2 / sum(m * m / df for m, df in squares)
    return max(-1.0, estimate - half), min(1.0, estimate + half), p_value, math.sqrt(variance), df
