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
truncation at 0. A `Term` holds the signed mean squares (`Square`s, already on the scale of the variance
of the mean) it is made of, each with its degrees of freedom; an Avg over J benchmarks has one seed term
(from the per-seed Avg) and one problem term per benchmark, divided by J^2.

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

A paired difference with 3+ seeds (one seed term of S - 1 >= 2 df; `calibrated`) does not use the mixture:
the mixture is the Behrens-Fisher fiducial distribution, exact when the seed term or the problem terms
dominate and conservative in between (95% intervals covered 0.958-0.978 at 30-40 problems; the seed term's
2-4 df mixed with the well-determined problem terms is the cause, measured in docs/statistics.md). Its
interval is estimate +- c(rho) SE instead, rho = seed term / variance the estimated seed share, with the
critical values c of harness.reports.stats.welch_aspin: the test of that form whose size is the level at
every true seed share (Welch 1947, Aspin 1948; solved numerically). The p-value comes from the same
critical values, so p < 1 - level still exactly when the interval excludes 0. Two seeds (1 df) and the
unpaired comparisons keep the mixture.

Every mean square may be a numpy array over tables (shape [T]; harness.reports.stats.stacked): the draws
then broadcast to [T, DRAWS] and the arithmetic is the same, so a batch of simulated tables goes through
exactly the test the reports print.

Alternatives measured and set aside (docs/statistics.md): flooring the seed term at the residual (its
fiducial draw never below the residual's), a parametric bootstrap-t on the chi-square pivots, the same
averaged over the fiducial draws, and Welch's df on the untruncated seed term.

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

from harness.reports.stats.welch_aspin import half_widths
from harness.reports.stats.welch_aspin import p_values as welch_aspin_p

DRAWS = 2048  # fiducial draws per mean square: quantile error well below 0.1% of the half-width


class Square(NamedTuple):
    value: float | np.ndarray  # a mean square on the variance-of-the-mean scale (or [T] of them)
    df: int
    name: str  # its place in the fixed order of draws (two squares of one interval never share a name)


class Term(NamedTuple):
    mean_squares: tuple[tuple[Square, int], ...]  # (square, sign +1 or -1)

    def value(self):
        return _value(self, lambda s: s.value)


def _value(term: Term, read):
    """max(0, signed sum), each square read by `read` (its value, or its fiducial draws)."""
    return np.maximum(0.0, sum(sign * read(s) for s, sign in term.mean_squares))


def residual_square(block: np.ndarray, J: int = 1, name: str = "resid") -> Square:
    """MS_resid / (S n J^2) of a seeds x problems block ([..., S, n]: a leading table axis is kept), its df."""
    S, n = block.shape[-2:]
    r = block - block.mean(axis=-2, keepdims=True) - block.mean(axis=-1, keepdims=True)
    r = r + block.mean(axis=(-2, -1), keepdims=True)  # the two-way residual
    return Square((r**2).sum(axis=(-2, -1)) / ((S - 1) * (n - 1)) / (S * n * J**2), (S - 1) * (n - 1), name)


def problem_term(vector: np.ndarray, J: int, residuals: list[Square], name: str = "problem") -> list[Term]:
    """var(v)/n from seed-averaged per-problem values (MS_problem / (S n J^2)) net of the `residuals` they
    carry (one per side with 2+ seeds); none with fewer than two problems."""
    n = vector.shape[-1]
    if n < 2:
        return []
    spread = Square(vector.var(axis=-1, ddof=1) / n / J**2, n - 1, name)
    return [Term(((spread, +1), *((r, -1) for r in residuals)))]


SEED = "seed"  # the name of a paired difference's one seed term (an unpaired one has seed0 and seed1)


def seed_term(blocks: list[np.ndarray], name: str = SEED) -> list[Term]:
    """var(u)/S + var(r)/(S n) from blocks with the same seeds (one per benchmark): MS_seed/(S n) of the
    per-seed Avg, S - 1 df; none with one seed (a 1-seed interval cannot measure seed variation)."""
    S = blocks[0].shape[-2]
    if S < 2:
        return []
    seed_means = np.mean([b.mean(axis=-1) for b in blocks], axis=0)  # [..., S]: per-seed Avg
    return [Term(((Square(seed_means.var(axis=-1, ddof=1) / S, S - 1, name), +1),))]


def paired_terms(blocks: list[np.ndarray]) -> list[Term]:
    """The terms of a paired difference from its seeds x problems blocks D (one per benchmark, the same
    seeds in each; [..., S, n], a leading axis of tables allowed): a problem term per benchmark net of its
    residual, then the seed term of the per-seed Avg."""
    J, terms = len(blocks), []
    for j, d in enumerate(blocks):
        residual = [residual_square(d, J, f"resid{j}")] if min(d.shape[-2:]) >= 2 else []
        terms += problem_term(d.mean(axis=-2), J, residual, f"problem{j}")
    return terms + seed_term(blocks)


@cache
def fiducial(df: int, position: int) -> np.ndarray:
    """[DRAWS] draws of chi2_df / df: stratified quantiles in an order fixed by (df, position), so that two
    mean squares of a term (or of two terms) are drawn independently."""
    quantiles = chi2.ppf((np.arange(DRAWS) + 0.5) / DRAWS, df) / df
    return np.random.default_rng([df, position]).permutation(quantiles)


def variance_draws(terms: list[Term], draws: int = DRAWS):
    """Fiducial draws of the variance ([DRAWS], or [T, DRAWS] for arrays of tables): every mean square m
    replaced by m / (chi2_f / f), positions in order of first appearance of each named square."""
    positions: dict[str, int] = {}
    for term in terms:
        for square, _ in term.mean_squares:
            positions.setdefault(square.name, len(positions))
    pivot = lambda s: np.asarray(s.value)[..., None] / fiducial(s.df, positions[s.name])[:draws]  # noqa: E731
    return sum(_value(term, pivot) for term in terms)


def error_scales(terms: list[Term], draws: int = DRAWS):
    """sd of each normal of the mixture: sqrt(V*) per fiducial draw ([DRAWS] or [T, DRAWS])."""
    return np.sqrt(np.maximum(variance_draws(terms, draws), 1e-30))


def calibrated(terms: list[Term]):
    """(seed term's value, the other terms' value, f1, f2) when the terms are a paired difference's with 3+
    seeds (one seed term named SEED, f1 = S - 1 >= 2; f2 = the smallest problem mean square's df): its
    test takes Welch-Aspin critical values (harness.reports.stats.welch_aspin); None otherwise (the mixture)."""
    seeds = [t for t in terms if t.mean_squares[0][0].name == SEED]
    rest = [t for t in terms if t.mean_squares[0][0].name != SEED]
    if len(seeds) != 1 or seeds[0].mean_squares[0][0].df < 2 or not rest:
        return None
    f2 = min(s.df for t in rest for s, sign in t.mean_squares if sign > 0)
    return seeds[0].value(), sum(t.value() for t in rest), seeds[0].mean_squares[0][0].df, f2


def interval(estimate: float, terms: list[Term], level: float) -> tuple[float, float, float, float, float]:
    """(low, high, two-sided p, SE, df): cut to [-1, 1]; a paired difference with 3+ seeds takes the
    Welch-Aspin critical value at its estimated seed share (`calibrated`), any other the mixture interval
    of the module docstring. SE is the square root of the point estimate of the variance; df the
    Satterthwaite value at that estimate over every mean square read (reported, not used)."""
    variance = float(sum(t.value() for t in terms))
    if variance <= 0:
        return estimate, estimate, 1.0 if estimate == 0 else 0.0, 0.0, math.inf
    sd = error_scales(terms)  # [DRAWS]
    p_value = float(2 * ndtr(-abs(estimate) / sd).mean())
    paired = calibrated(terms)
    if paired is not None:
        seed, rest, f1, f2 = paired
        half = float(half_widths(seed, rest, f1, f2, round(1 - level, 12)))
        p_value = float(welch_aspin_p(abs(estimate), seed, rest, f1, f2, p_value))  # the mixture's below 0.01
    else:
        target = 0.5 + level / 2
        half = brentq(lambda x: float(ndtr(x / sd).mean()) - target, 0.0, 1e3 * math.sqrt(variance) + 1.0, xtol=1e-10)
    squares = [s for t in terms for s, _ in t.mean_squares]
    df = variance**2 / sum(float(s.value) ** 2 / s.df for s in squares)
    return max(-1.0, estimate - half), min(1.0, estimate + half), p_value, math.sqrt(variance), df
