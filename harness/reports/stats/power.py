"""Seed and sample budgets for accuracy differences: the variance of a paired difference from its parts.

Per benchmark, two rows compared on n problems, S paired training seeds, k samples per problem. With a
row's avg@k = mean over seeds and problems of p[seed, problem] plus sampling noise, the variance of the
treatment - control difference of avg@k is (fractions; every term an independent source):

    SE^2 = 2 seed_sd^2 / S                                 training seed: a row's whole-benchmark shift
         + problem_sd^2 / n                                which problems the benchmark happens to hold
         + 2 (interaction_sd^2 + sample_var / k) / (S n)   per seed and problem: the seed's own luck on that
                                                           problem, and the k samples' Bernoulli noise

The 2s: each row has its own seeds' shifts and interactions, and its own samples (sample_var is the mean
p(1-p), one sample's variance; k samples divide it by k). problem_sd is already a difference's (the sd
over problems of the two rows' expected per-problem accuracies). The interval of
harness.reports.stats.accuracy.difference estimates this same variance (its two-way ANOVA form) from a run.

Power (`power_of`) is simulated, not approximated. Components measured on a run (`components_from`, which
also keeps the rows' mean accuracy) are turned into the logit model of harness.reports.stats.simulate
(harness.reports.stats.logit_fit: the model with these moments) and Bernoulli tables of the asked design
are drawn from it and put through the reports' test, the components taken at the fiducial medians of
the run's mean squares (harness.reports.stats.pilot: a 3-seed run's point estimates made plans
optimistic, the power averaged over the fiducial draws conservative): near 0% or 100% accuracy the p-scale mean squares
are far from normal, and the normal tables below missed the simulated power by up to 11 points there.
Stated assumptions without a mean accuracy (PAPER_ASSUMPTIONS) keep the normal tables: TABLES normal
tables of the design drawn once and
reused for every design (common random numbers), each table's mean and its three mean squares (S - 1,
n - 1, (S-1)(n-1) df; independent in a balanced normal crossed design, so a table is just these draws)
put through the test the reports print (harness.reports.stats.crossed: the fiducial mixture), and the
fraction that rejects counted. MDE (`minimum_detectable_difference`) is where that power first reaches
80%. Checked against tables of the logit model of harness.reports.stats.simulate (docs/statistics.md:
plan minus simulated power per design). One seed: only MS_problem is read but the seed term is in the
variance, so where the seed term dominates (MATH-500) one seed's MDE can come out below two or three
seeds': the 1-seed test pays nothing for not knowing the seed term, and cannot tell seed luck from a
difference.

PAPER_ASSUMPTIONS (stated defaults for `harness plan --profile paper`; a run with 2+ seeds replaces them
by `components_from`):
- problems: AIME24 30, AIME25 30, HMMT25 30 (February 2025), MATH-500 500, AMC23 40 (the files of
  benchmarks/families/math_competitions.py); samples k = 16 and seeds = 1: the `paper` profile of
  harness/profiles.py (PROFILES), the paper's avg@k evaluation as this project runs it.
- accuracy level m per benchmark: the mean of the GRPO, DAPO and CE-GPPO(0.5,1) rows at 1.5B of the
  CE-GPPO paper's Table 1 (arXiv 2509.20712; harness/reports/paper_numbers.py), e.g. AIME24 38.5%.
- sample_var = E[p(1-p)] = m(1-m)/2: per-problem accuracies spread like Beta(m, 1-m) (a + b = 1), half
  of the Bernoulli variance between problems. Assumed: on competition maths a 1.5B model solves some
  problems nearly always and others nearly never.
- problem_sd: per-problem logit shifts between two trained rows with sd 0.5, mapped by dp = p(1-p) dlogit
  (sd = 0.5 sqrt(E[(p(1-p))^2]) under the same Beta): about 7 points on AIME. Assumed.
- interaction_sd: the same mapping of a logit sd 0.3 between training seeds on one problem. Assumed.
- seed_sd = 1 point of avg@k on every benchmark. Assumed: no published study of RL training-seed
  variance at this scale was found; evaluation-seed studies (Hochlehnert et al. 2025, "A Sober Look at
  Progress in Language Model Reasoning", arXiv 2504.07086) report sd of several points on AIME24 for
  single-sample accuracy, which this model carries in sample_var / k and the interaction term; what is
  left for a training seed's whole-benchmark shift is taken to be smaller.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr

from harness.reports.paper_numbers import COLUMNS, REPORTED
from harness.reports.stats.components import Components, Pilot  # noqa: F401  (Components: re-exported)
from harness.reports.stats.crossed import fiducial
from harness.reports.stats.logit_fit import LogitModel, fit, simulated_power
from harness.reports.stats.pilot import component_median
from harness.reports.stats.welch_aspin import p_values as welch_aspin_p

MAX_SIMULATED = (64, 256)  # seeds, samples: larger designs (the "unlimited" floor) keep the normal tables
TABLES = 1000  # simulated tables per power figure (fixed draws: common random numbers across designs)
MIXTURE = 256  # fiducial draws per table's p-value (its noise averages out over the tables)


def _design(c: Components, seeds: int, samples: int, problems: int | None) -> tuple[float, list[tuple[float, int]]]:
    """(SE of the paired difference, the expected mean squares MS_seed, MS_problem, MS_resid with their df,
    on the variance-of-the-mean scale) for a design (module docstring); one seed: MS_problem only."""
    n, S = problems or c.problems, seeds
    residual = 2 * (c.interaction_sd**2 + c.sample_var / samples)  # per cell, of the difference
    variance = 2 * c.seed_sd**2 / S + c.problem_sd**2 / n + residual / (S * n)
    problem = ((S * c.problem_sd**2 + residual) / (S * n), n - 1)
    if S < 2:
        return math.sqrt(variance), [problem]
    seed = ((n * 2 * c.seed_sd**2 + residual) / (S * n), S - 1)
    return math.sqrt(variance), [seed, problem, (residual / (S * n), (S - 1) * (n - 1))]


@cache
def _standard_tables(dfs: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Fixed draws for TABLES tables: the estimate's standard normal error and chi2_f / f per mean square
    (in a balanced normal crossed design the mean and the mean squares are independent, so a table IS
    these draws: no seeds x problems matrix needed)."""
    rng = np.random.default_rng(2028)
    return rng.standard_normal(TABLES), np.stack([rng.chisquare(f, TABLES) / f for f in dfs])


def power_of(components, difference_points, seeds, samples, *, alpha=0.05, problems=None) -> float:
    """Probability that the two-sided test at `alpha` of harness.reports.stats.crossed (the interval the
    reports print) rejects when the true difference is `difference_points`: simulated on TABLES normal
    tables of the design with fixed draws, each table's p-value from the same fiducial mixture."""
    se, squares = _design(components, seeds, samples, problems)
    if not se > 0:
        return math.nan
    if math.isfinite(components.mean) and seeds <= MAX_SIMULATED[0] and samples <= MAX_SIMULATED[1]:
        # measured: Bernoulli tables of the logit model fitted to them
        n = problems or components.problems
        model = logit_model(component_median(components))  # at the pilot's fiducial medians (pilot.py)
        return simulated_power(model, difference_points, seeds, samples, n, alpha)
    z, scaled = _standard_tables(tuple(f for _, f in squares))
    estimate = np.abs(difference_points / 100 + se * z)[:, None]  # [TABLES, 1]
    observed = [m * scaled[j][:, None] for j, (m, _) in enumerate(squares)]  # the tables' mean squares
    if len(squares) == 1:  # one seed: the problem term alone
        variance = observed[0] / fiducial(squares[0][1], 0)[None, :MIXTURE]
    else:  # the order of accuracy.paired_difference: problem spread, residual, then seed (positions 0, 1, 2)
        seed, problem, residual = observed
        variance = np.maximum(
            problem / fiducial(squares[1][1], 0)[:MIXTURE] - residual / fiducial(squares[2][1], 1)[:MIXTURE], 0.0
        )
        variance = variance + seed / fiducial(squares[0][1], 2)[:MIXTURE]  # [TABLES, MIXTURE]
    p_values = 2 * ndtr(-estimate / np.sqrt(np.maximum(variance, 1e-30))).mean(axis=1)
    if len(squares) == 3 and squares[0][1] >= 2:  # 3+ seeds: the Welch-Aspin test of crossed.interval
        rest = np.maximum(observed[1] - observed[2], 0.0)[:, 0]
        p_values = welch_aspin_p(estimate[:, 0], observed[0][:, 0], rest, squares[0][1], squares[1][1], p_values)
    return float((p_values < alpha).mean())


@cache
def logit_model(c: Components) -> LogitModel:
    """The logit model (harness.reports.stats.logit_fit) with the moments of measured components."""
    return fit(c.mean, c.mean - c.sample_var, c.seed_sd**2, c.interaction_sd**2, c.problem_sd**2, c.difference)


def minimum_detectable_difference(
    components: Components, seeds: int, samples: int, *, alpha=0.05, power=0.8, problems: int | None = None
) -> float:
    """The smallest true difference (points) the test detects with `power` (`power_of` inverted; with
    fixed draws power_of is a step function, so this is where it first reaches `power`, to 0.01 point)."""
    se, _ = _design(components, seeds, samples, problems)
    if not math.isfinite(se) or se <= 0:
        return math.nan
    reach = lambda d: power_of(components, d, seeds, samples, alpha=alpha, problems=problems) - power  # noqa: E731
    high = 100 * se
    while reach(high) < 0:
        high *= 2
        if high > 1e4:
            return math.inf
    return brentq(reach, 0.0, high, xtol=0.01) if reach(0.0) < 0 else 0.0


def budget(
    components,
    difference_points,
    *,
    power=0.8,
    alpha=0.05,
    seeds_options=(1, 2, 3, 5, 8, 10, 16, 32),
    samples_options=(1, 2, 4, 8, 16, 32, 64),
) -> list[tuple[int, int, float]]:
    """(seeds, samples, power) for the cheapest designs reaching `power`: for each seed count the fewest
    samples that do, keeping only those no other option beats on both (fewer seeds need more samples;
    a seed costs a training run, a sample only evaluation, so the trade-off is left to the reader). A
    1-seed option's power counts the seed term, but its interval cannot measure that term: it is offered
    only where its test still holds its level (`one_seed_holds_level`), else its "power" is mostly seed
    luck (measured on the tiny Table 1: seed sd 8.3 points, 1 seed x 2 samples "detected" 2.5 points
    with 0.82 while 5 seeds x 4 samples detect 20.6)."""
    options, best = [], math.inf
    for seeds in sorted(seeds_options):
        for samples in sorted(samples_options):
            if samples >= best:  # a cheaper option with fewer seeds already needs no more samples
                break
            if seeds == 1 and not one_seed_holds_level(components, samples, alpha):
                break
            reached = power_of(components, difference_points, seeds, samples, alpha=alpha)
            if reached >= power and samples < best:
                options.append((seeds, samples, reached))
                best = samples
                break
    return options


LEVEL_SLACK = 1.5  # a 1-seed test counts as holding its level while it rejects a null at most 1.5 x alpha


def one_seed_holds_level(components: Components, samples: int, alpha: float = 0.05) -> bool:
    """Whether one seed's test (problems only: it reads no seed term) rejects a true difference of 0 at most
    LEVEL_SLACK x alpha of the time under the components, seed term included. With a seed sd of a point or
    less on few problems it does; with a seed term that dominates it rejects nulls on seed luck."""
    return power_of(components, 0.0, 1, samples, alpha=alpha) <= LEVEL_SLACK * alpha


def _assumed(level: float, problems: int) -> Components:
    """Stated defaults at a mean accuracy `level` (see PAPER_ASSUMPTIONS)."""
    m, phi = level, 1.0  # per-problem accuracies ~ Beta(m phi, (1-m) phi): half the variance between problems
    a, b = m * phi, (1 - m) * phi
    bernoulli = m * (1 - m) * phi / (phi + 1)  # E[p(1-p)]
    slope = math.sqrt(a * (a + 1) * b * (b + 1) / (phi * (phi + 1) * (phi + 2) * (phi + 3)))  # sqrt E[(p(1-p))^2]
    # dp = p(1-p) dlogit: logit sd 0.5 between two trained rows per problem, 0.3 between seeds per problem
    return Components(0.01, 0.5 * slope, bernoulli, problems, PAPER_SAMPLES, PAPER_SEEDS, 0.3 * slope)


PAPER_SAMPLES, PAPER_SEEDS = 32, 1  # harness.profiles PROFILES["paper"]: k=32, seeds=1
PAPER_PROBLEMS = {"aime24": 30, "aime25": 30, "hmmt25": 30, "math500": 500, "amc23": 40}
PAPER_LEVELS = {  # mean of the paper's 1.5B GRPO, DAPO and CE-GPPO(0.5,1) rows, as a fraction
    b: sum(REPORTED["1.5B"][row][i] for row in ("GRPO", "DAPO", "CE-GPPO(0.5,1)")) / 300
    for i, b in enumerate(COLUMNS[:-1])
}
PAPER_ASSUMPTIONS: dict[str, Components] = {b: _assumed(PAPER_LEVELS[b], n) for b, n in PAPER_PROBLEMS.items()}
