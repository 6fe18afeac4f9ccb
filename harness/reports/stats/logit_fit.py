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

`simulated_power` then draws TABLES Bernoulli tables of the asked design from the fitted model, two rows
whose true difference is the asked one (the logit shift that gives it, by quadrature), and counts how
often the reports' own test (harness.reports.stats.batch) rejects. The draws are seeded from the design,
so a plan is reproducible. Checked in harness.reports.stats.calibration (`planned_power`): the plan is
given a simulated pilot table, not the truth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from harness.reports.stats.batch import p_values
from harness.reports.stats.simulate import Design, simulate_tables, true_difference

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


def _joint(mu: float, sigma: float, rho: float) -> float:
    """f(rho): E[sigmoid(mu + X) sigmoid(mu + Y)], var X = var Y = sigma^2, cov rho (0 <= rho <= sigma^2)."""
    if sigma <= 0:
        return _moments(mu, 0.0)[0] ** 2
    a = rho / sigma  # X = sigma Z1, Y = a Z1 + b Z2
    b = math.sqrt(max(0.0, sigma**2 - a * a))
    x = _sigmoid(mu + sigma * _NODES)[:, None]
    y = _sigmoid(mu + a * _NODES[:, None] + b * _NODES[None, :])
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


def fit(mean: float, square: float, seed_var: float, interaction_var: float, problem_var: float) -> LogitModel:
    """The logit model whose moments are these (module docstring): mean accuracy, E p^2, and the p-scale
    seed, interaction and problem (paired difference) variances."""
    mean = min(max(mean, 1e-4), 1 - 1e-4)
    square = min(max(square, mean**2), mean)  # E p^2 lies between m^2 (no spread) and m (p 0 or 1)
    spread = lambda s: _moments(_location(mean, s), s)[1]  # noqa: E731  (E p^2 at sd s, mean held)
    sigma = _inverse(spread, square, 0.0, 12.0)
    mu = _location(mean, sigma)
    f = lambda rho: _joint(mu, sigma, rho)  # noqa: E731
    total = sigma**2
    seed = _inverse(f, mean**2 + seed_var, 0.0, total)
    shared = _inverse(f, f(total) - interaction_var - f(seed) + mean**2, 0.0, total - seed)  # A
    difficulty = _inverse(f, f(shared) - problem_var / 2, 0.0, shared)
    interaction = max(0.0, total - shared - seed)
    return LogitModel(float(_sigmoid(mu)), math.sqrt(difficulty), math.sqrt(shared - difficulty), math.sqrt(seed),
                      math.sqrt(interaction))  # fmt: skip


def logit_shift(model: LogitModel, difference: float) -> float:
    """The logit shift whose true difference (a fraction) is `difference` (cut to what the scale allows)."""
    design = model.design(2, 2, 1)
    reach = lambda s: true_difference(design, s) - abs(difference)  # noqa: E731
    high = 1.0
    while reach(high) < 0 and high < 40:
        high *= 2
    return math.copysign(brentq(reach, 0.0, high, xtol=1e-9) if reach(high) >= 0 else high, difference)


def simulated_power(model: LogitModel, difference_points: float, seeds: int, samples: int, problems: int,
                    alpha: float = 0.05, tables: int = TABLES) -> float:  # fmt: skip
    """Rejection rate of the reports' two-sided test at `alpha` on `tables` tables of the fitted model whose
    true difference is `difference_points`. One seed: the test over problems only (its seed term unseen)."""
    design = model.design(problems, seeds, samples)
    shift = logit_shift(model, difference_points / 100)
    rng = np.random.default_rng([problems, seeds, samples, 2028])
    chunk, rejected = max(1, CHUNK_CELLS // (2 * seeds * problems)), 0
    for start in range(0, tables, chunk):
        t = simulate_tables(design, [shift, 0.0], rng, min(chunk, tables - start))
        rejected += int((p_values(t[:, 0] - t[:, 1]) < alpha).sum())
    return rejected / tables
