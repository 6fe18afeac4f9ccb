"""`harness plan`'s power from the logit model of harness.reports.stats.simulate, fitted to measured scores.

The p-scale components of harness.reports.stats.power (seed sd, problem sd, interaction sd, p(1-p)) are
moments of the accuracies p. Under the logit model (simulate.py: logit p = mu + d[i] + c[r, i] + u[r, s]
+ w[r, s, i], sds sigma_d, sigma_c, sigma_u, sigma_w) each of them is a difference of

    f(rho) = E[ sigmoid(mu + X) sigmoid(mu + Y) ],  X, Y normal, variance sigma^2 each, covariance rho

(sigma^2 = the sum of the four variances), rho being the variance the two cells share:

    E p                    = E sigmoid(mu + sigma Z)                   (the mean accuracy m)
    E p^2 = m - E p(1-p)   = f(sigma^2)                                (a cell with itself)
    seed_sd^2              = f(sigma_u^2) - f(0)                       (one run, two problems: u shared)
    interaction_sd^2       = f(sigma^2) - f(A) - f(sigma_u^2) + f(0)   (the two-way residual of p)
    problem_sd^2           = 2 (f(A) - f(sigma_d^2))                   (two rows on one problem)

with A = sigma_d^2 + sigma_c^2 (one row, two runs, one problem), f(0) = m^2. Solved in that order (m and
E p^2 give mu and sigma; then each line one variance, f being increasing in rho), by 2-D Gauss-Hermite
quadrature. Estimates outside what the model can produce are cut to its range.

The measured rows sit at different accuracies: they are read as two rows at mu + h and mu - h (their
mean accuracies the rows' mean +- half their gap; `fit`'s `difference`), each moment the two rows'
average and the problem variance that of their difference net of the gap, so the gap is not taken for
row x problem spread. `simulated_power` then draws TABLES Bernoulli tables of the asked design from the
fitted model (or shared among draws of it: harness.reports.stats.pilot), two rows either side of mu
whose true difference is the asked one (the logit shift that gives it, by quadrature), and counts how
often the reports' own test (harness.reports.stats.stacked) rejects. The draws are seeded from the design,
so a plan is reproducible. Checked in harness.reports.stats.calibration (`planned_power`): the plan is
given a simulated pilot table, not the truth.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy.optimize import brentq

from harness.reports.stats.simulate import Design, mean_accuracy
from harness.reports.stats.stacked import p_values

TABLES = 400  # simulated tables per power figure: Monte Carlo se at most 2.5 points
CHUNK_CELLS = 4_000_000  # cells simulated at once (memory)
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(48)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


@dataclass(frozen=True)
class LogitModel:
    base: float  # sigmoid(mu): accuracy of a problem, row and run with every effect 0
    difficulty_sd: float
    row_problem_sd: float
    seed_sd: float
    interaction_sd: float

    def design(self, problems: int, seeds: int, samples: int) -> Design:
        return Design(problems, seeds, samples, self.base, self.seed_sd, self.interaction_sd, self.row_problem_sd,
                      self.difficulty_sd)  # fmt: skip


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _moments(mu: float, sigma: float) -> tuple[float, float]:
    p = _sigmoid(mu + sigma * _NODES)
    return float(_WEIGHTS @ p), float(_WEIGHTS @ p**2)


def _joint(mu_x: float, mu_y: float, sigma: float, rho: float) -> float:
    """E[sigmoid(mu_x + X) sigmoid(mu_y + Y)], var X = var Y = sigma^2, cov rho (0 <= rho <= sigma^2)."""
    if sigma <= 0:
        return float(_sigmoid(mu_x) * _sigmoid(mu_y))
    a = rho / sigma  # X = sigma Z1, Y = a Z1 + b Z2
    b = math.sqrt(max(0.0, sigma**2 - a * a))
    x = _sigmoid(mu_x + sigma * _NODES)[:, None]
    y = _sigmoid(mu_y + a * _NODES[:, None] + b * _NODES[None, :])
    return float(_WEIGHTS @ (x * y) @ _WEIGHTS)


def _inverse(g, target: float, low: float, high: float) -> float:
    """The x in [low, high] with g(x) = target for an increasing g, cut to the ends."""
    if high <= low or target <= g(low):
        return low
    if target >= g(high):
        return high
    return brentq(lambda x: g(x) - target, low, high, xtol=1e-10)


def _location(mean: float, sigma: float) -> float:
    """mu with E sigmoid(mu + sigma Z) = mean."""
    return brentq(lambda mu: _moments(mu, sigma)[0] - mean, -40.0, 40.0, xtol=1e-12)


def fit(mean: float, square: float, seed_var: float, interaction_var: float, problem_var: float,
        difference: float = 0.0) -> LogitModel:  # fmt: skip
    """The logit model whose moments are these (module docstring): mean accuracy, E p^2, and the p-scale
    seed, interaction and problem (paired difference) variances, measured on rows whose mean accuracies
    differ by `difference` (two rows at logit mu +- h: mean +- difference/2; the moments are the rows'
    averages, the problem variance the spread of the difference of the two, net of their mean gap)."""
    half = min(abs(difference) / 2, 0.49)
    mean = min(max(mean, half + 1e-4), 1 - half - 1e-4)
    square = min(max(square, mean**2 + half**2), mean)  # E p^2 between the rows' squared means and m

    def locations(s):  # mu + h and mu - h: each row's mean accuracy at logit sd s
        return _location(mean + half, s), _location(mean - half, s)

    def spread(s):  # E p^2 at sd s, the rows' means held
        high, low = locations(s)
        return (_moments(high, s)[1] + _moments(low, s)[1]) / 2

    sigma = _inverse(spread, square, 0.0, 12.0)
    high, low = locations(sigma)
    within = lambda rho: (_joint(high, high, sigma, rho) + _joint(low, low, sigma, rho)) / 2  # noqa: E731
    across = lambda rho: _joint(high, low, sigma, rho)  # noqa: E731  (the two rows on one problem)
    total = sigma**2
    seed = _inverse(within, within(0.0) + seed_var, 0.0, total)
    shared = _inverse(within, within(total) - interaction_var - within(seed) + within(0.0), 0.0, total - seed)  # A
    difficulty = _inverse(across, within(shared) - 2 * half**2 - problem_var / 2, 0.0, shared)
    interaction = max(0.0, total - shared - seed)
    return LogitModel(float(_sigmoid((high + low) / 2)), math.sqrt(difficulty), math.sqrt(shared - difficulty),
                      math.sqrt(seed), math.sqrt(interaction))  # fmt: skip


@cache  # a plan asks the same difference of each drawn model at every design it weighs
def logit_shift(model: LogitModel, difference: float) -> float:
    """The logit shift s whose rows at +s/2 and -s/2 about the model differ by `difference` (a fraction; cut
    to what the scale allows). The model is fitted at the measured rows' mean accuracy, so the two rows of
    the plan lie either side of it, as the measured rows do (placing the control at that mean put the
    treatment nearer the ceiling than the measured rows: +10 points of power at 90% accuracy)."""
    design = model.design(2, 2, 1)
    reach = lambda s: mean_accuracy(design, s / 2) - mean_accuracy(design, -s / 2) - abs(difference)  # noqa: E731
    high = 1.0
    while reach(high) < 0 and high < 80:
        high *= 2
    return math.copysign(brentq(reach, 0.0, high, xtol=1e-9) if reach(high) >= 0 else high, difference)


def _tables(models: list[LogitModel], shifts: np.ndarray, design: tuple[int, int, int], rng) -> np.ndarray:
    """One table per model ([T, 2, S, n]): the model of harness.reports.stats.simulate with every parameter
    an array over the tables, rows at +-shift/2 about each model's base."""
    n, S, k = design
    sd = lambda name: np.array([getattr(m, name) for m in models])[:, None, None, None]  # noqa: E731
    T, base = len(models), np.array([m.base for m in models])
    logit = (np.log(base / (1 - base)))[:, None, None, None] + np.stack([shifts / 2, -shifts / 2], 1)[:, :, None, None]
    logit = logit + rng.normal(0.0, 1.0, (T, 1, 1, n)) * sd("difficulty_sd")
    logit = logit + rng.normal(0.0, 1.0, (T, 2, 1, n)) * sd("row_problem_sd")
    logit = logit + rng.normal(0.0, 1.0, (T, 2, S, 1)) * sd("seed_sd")
    logit = logit + rng.normal(0.0, 1.0, (T, 2, S, n)) * sd("interaction_sd")
    return rng.binomial(k, 1.0 / (1.0 + np.exp(-logit))) / k


def simulated_power(models: LogitModel | Sequence[LogitModel], difference_points: float, seeds: int, samples: int,
                    problems: int, alpha: float = 0.05, tables: int = TABLES) -> float:  # fmt: skip
    """Rejection rate of the reports' two-sided test at `alpha` on `tables` tables whose true difference is
    `difference_points`, the tables shared out evenly among `models` (one model, or draws of it: then the
    power averaged over them). One seed: the test over problems only (its seed term unseen)."""
    models = [models] if isinstance(models, LogitModel) else list(models)
    shifts = np.array([logit_shift(m, difference_points / 100) for m in models])
    which = np.arange(tables) % len(models)  # table t is drawn from model t mod len(models)
    rng = np.random.default_rng([problems, seeds, samples, 2028])
    chunk, rejected = max(1, CHUNK_CELLS // (2 * seeds * problems)), 0
    for start in range(0, tables, chunk):
        part = which[start : start + chunk]
        t = _tables([models[j] for j in part], shifts[part], (problems, seeds, samples), rng)
        rejected += int((p_values(t[:, 0] - t[:, 1]) < alpha).sum())
    return rejected / tables
