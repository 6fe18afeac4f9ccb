"""Critical values of the paired test whose size is alpha whatever the seed share (Welch-Aspin, solved numerically).

The paired difference's variance estimate (harness.reports.stats.crossed) is V = A + B: the seed term A =
MS_seed / (S n) with f1 = S - 1 degrees of freedom (2 or 4 on the grid) and the problem part B (the problem
terms net of the residual: tens to hundreds of df). The fiducial mixture over both is the Behrens-Fisher
fiducial distribution: exact when one part dominates (Student's t with f1, or with the problem df) and
conservative in between. Measured (docs/statistics.md): with the seed term's mean square held at its
expectation the 30-40-problem designs cover 0.945-0.958 (15 of 16); with the problem terms held there they
stay at 0.955-0.969; on normal tables with the same expected mean squares the mixture covers exactly as much as
on the Bernoulli tables. The over-coverage is the mixing of a 2-4 df term with a well-determined one, not
the truncation at 0 and not the data.

Every test of the form

    reject Delta = d  when  |estimate - d| > c(rho) sqrt(V),     rho = A / V (the estimated seed share)

has, on normal tables (A = a X1, B = b X2, X1 ~ chi2_f1 / f1, X2 ~ chi2_f2 / f2, independent of the
estimate; the scale of V drops out), at a true seed share r = a / (a + b) the size

    size(r) = E[ 2 Phi(-c(rho) sqrt(r X1 + (1 - r) X2)) ],   rho = r X1 / (r X1 + (1 - r) X2).

The fiducial mixture is one such c (its half-width over sqrt(V) depends on rho alone); Welch (1947) and
Aspin (1948) asked for the c with size(r) = alpha at EVERY r. Here c is piecewise linear in rho on KNOTS
knots and solved by least squares over a grid of true shares (quadrature over X1 and X2 at stratified
quantiles, denser in X1's lower tail, where the large t values come from), with a small penalty on the
second differences of log(c / t start) (the integral equation is of the first kind: the penalty keeps c
smooth); then c is
scaled up, if needed, until the largest size over a finer grid of shares is at most alpha. At r = 1 the
test is Student's t with f1 df, at r = 0 with f2: c(1) and c(0) come out as those quantiles.

B is a difference of mean squares (problem minus residual), so it is not exactly a scaled chi-square; it
is given f2 = the problem mean square's df (the smallest over the benchmarks of an Avg). Measured on the
24-design grid, not assumed: docs/statistics.md.

P-values: the test is solved at the levels in ALPHAS (0.01 to 0.5, 0.05 among them); a table's p-value
is where its |estimate - d| / sqrt(V) falls between the critical values at its rho, log alpha interpolated
linearly (so p < 0.05 exactly when the 95% interval excludes d). Below 0.01 the fiducial mixture's p-value
is used (capped at 0.01): with a 2-df seed term no c holds the size exactly at the small levels (a seed
mean square near 0 gives huge t values at a small estimated share: the least-squares c there grows to
hundreds, a p-value of 0.003 for an estimate 30 SE away), while the mixture is conservative there too
(rejecting at level a < 0.01 only where both tests do keeps the size at most a).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from scipy.optimize import brentq, least_squares
from scipy.special import ndtr
from scipy.stats import chi2, t

KNOTS = np.linspace(0.0, 1.0, 21)  # the seed shares at which c is solved (linear in between)
SHARES = np.linspace(0.0, 1.0, 41)  # true shares the size is solved at
CHECK = np.linspace(0.0, 1.0, 101)  # true shares the size is checked at (then c scaled to hold alpha)
ALPHAS = (0.01, 0.0125, 1 / 60, 0.025, 0.05, 0.1, 0.2, 0.5)  # Holm's thresholds for 4 claims among them
PENALTY = 0.3  # weight of c's second differences against relative size errors
N1, N2 = 256, 8  # quadrature points for X1 (the seed term) and X2 (the problem part)
MAX_STEPS = 60  # least-squares evaluations (bounded: small levels at f1 = 2 converge slowly, see ladder())


def _nodes(df: float, count: int, power: int) -> tuple[np.ndarray, np.ndarray]:
    """Quadrature nodes of chi2_df / df and their weights: quantiles at u = v^power (v stratified on (0, 1));
    power 3 is dense in the lower tail (where the large t values come from); df = inf: the point 1."""
    if not math.isfinite(df):
        return np.ones(1), np.ones(1)
    v = (np.arange(count) + 0.5) / count
    return chi2.ppf(v**power, df) / df, power * v ** (power - 1) / count


def _design(f1: float, f2: float, shares: np.ndarray):
    """For every true share: the estimated share rho and sqrt(V) (true V = 1) at every node, and the weights."""
    x1, w1 = _nodes(f1, N1, 3)
    x2, w2 = _nodes(f2, N2, 1)
    a, b = shares[:, None, None] * x1[None, :, None], (1 - shares[:, None, None]) * x2[None, None, :]
    v = a + b
    weights = (w1[:, None] * w2[None, :]).ravel() / (w1.sum() * w2.sum())
    return (a / v).reshape(len(shares), -1), np.sqrt(v).reshape(len(shares), -1), weights


def _interp(rho: np.ndarray):
    """(left knot index, weight of the right knot) of piecewise-linear interpolation on KNOTS."""
    position = np.clip(rho, 0.0, 1.0) * (len(KNOTS) - 1)
    left = np.minimum(position.astype(int), len(KNOTS) - 2)
    return left, position - left


def _size(c: np.ndarray, design) -> np.ndarray:
    rho, scale, weights = design
    left, right = _interp(rho)
    return (2 * ndtr(-(c[left] * (1 - right) + c[left + 1] * right) * scale)) @ weights


@cache
def critical(f1: float, f2: float, alpha: float) -> np.ndarray:
    """c at KNOTS for the test of size `alpha` (module docstring): f1 the seed term's df, f2 the problem
    part's (math.inf: known). Solved as c = start exp(theta): start is Student's t at Satterthwaite's df
    for each share (anti-conservative in between for f1 = 2), theta's second differences are penalised."""
    design = _design(f1, f2, SHARES)
    rho, scale, weights = design
    left, right = _interp(rho)
    rows = np.arange(len(SHARES))[:, None] * len(KNOTS)
    smooth = PENALTY * np.diff(np.eye(len(KNOTS)), 2, axis=0)
    with np.errstate(divide="ignore"):
        start = t_quantile(alpha, 1 / (KNOTS**2 / f1 + (1 - KNOTS) ** 2 / f2))

    def residuals(theta):
        return np.concatenate([(_size(start * np.exp(theta), design) - alpha) / alpha, smooth @ theta])

    def jacobian(theta):  # d size / d c_k: -2 phi(c scale) scale, shared by the two knots around rho
        c = start * np.exp(theta)
        value = c[left] * (1 - right) + c[left + 1] * right
        slope = -2 * np.exp(-0.5 * (value * scale) ** 2) / math.sqrt(2 * math.pi) * scale * weights / alpha
        flat = np.zeros(len(SHARES) * len(KNOTS))
        np.add.at(flat, (rows + left).ravel(), (slope * (1 - right)).ravel())
        np.add.at(flat, (rows + left + 1).ravel(), (slope * right).ravel())
        return np.vstack([flat.reshape(len(SHARES), len(KNOTS)) * c[None, :], smooth])

    # a known problem part first (fast), then its solution as the start for f2 (c hardly depends on f2)
    theta = np.log(critical(f1, math.inf, alpha) / start) if math.isfinite(f2) else np.zeros(len(KNOTS))
    c = start * np.exp(least_squares(residuals, theta, jac=jacobian, max_nfev=MAX_STEPS).x)
    check = _design(f1, f2, CHECK)
    excess = lambda factor: float(_size(factor * c, check).max()) - alpha  # noqa: E731
    return c if excess(1.0) <= 0 else brentq(excess, 1.0, 4.0, xtol=1e-6) * c


def t_quantile(alpha: float, df) -> np.ndarray:
    """Two-sided Student t quantile (df = inf: normal)."""
    return t.ppf(1 - alpha / 2, np.asarray(df, dtype=float))


@cache
def ladder(f1: float, f2: float) -> np.ndarray:
    """[len(ALPHAS), KNOTS] critical values, made non-increasing in alpha at every share (each level's c the
    running maximum from alpha = 0.5 down): a larger
    c only lowers a test's size, so every level keeps size <= alpha. At f1 = 2 the size at 0.01 lies
    between 0.74 and 1 x alpha over the shares (0.98-1 at 0.05): below that no c is near exact."""
    cs = np.stack([critical(f1, f2, a) for a in ALPHAS])
    return np.maximum.accumulate(cs[::-1], axis=0)[::-1]


def _shares(seed, rest):
    v = seed + rest
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(v > 0, seed / v, 0.0), v


def half_widths(seed, rest, f1: float, f2: float, alpha: float):
    """c(rho) sqrt(V) for tables with seed term `seed` and problem part `rest` (arrays or floats)."""
    rho, v = _shares(np.asarray(seed, dtype=float), np.asarray(rest, dtype=float))
    c = ladder(f1, f2)[ALPHAS.index(alpha)] if alpha in ALPHAS else critical(f1, f2, alpha)
    return np.interp(rho, KNOTS, c) * np.sqrt(np.maximum(v, 0.0))


def p_values(distance, seed, rest, f1: float, f2: float, below):
    """Two-sided p-values of |estimate - d| = `distance` (module docstring), arrays or floats; where the
    test rejects at the smallest level of ALPHAS, min(that level, `below`): the fiducial mixture's p-values
    of the same tables (crossed.py), whose test keeps its size at the small levels Welch-Aspin cannot
    solve exactly with a 2-df seed term."""
    distance, seed, rest, below = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (distance, seed, rest, below))
    )
    rho, v = _shares(seed, rest)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(v > 0, distance / np.sqrt(np.maximum(v, 1e-300)), np.where(distance > 0, np.inf, 0.0))
    levels = np.log(np.array((*ALPHAS, 1.0)))  # c at each level, decreasing; c = 0 at alpha = 1
    cs = np.stack([np.interp(rho, KNOTS, c) for c in ladder(f1, f2)] + [np.zeros_like(rho)], axis=-1)
    above = np.clip((cs > ratio[..., None]).sum(axis=-1), 1, len(levels) - 1)  # levels whose c exceeds the ratio
    high = np.take_along_axis(cs, above[..., None] - 1, -1)[..., 0]
    low = np.take_along_axis(cs, above[..., None], -1)[..., 0]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # log alpha linear in c between levels
        between = np.exp(levels[above - 1] + (levels[above] - levels[above - 1]) * (high - ratio) / (high - low))
    return np.where(ratio >= cs[..., 0], np.minimum(ALPHAS[0], below), between)
