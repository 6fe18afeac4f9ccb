"""What a measured pilot does not know: its variance components at their fiducial medians, for the plan's power.

`components_from` (harness.reports.stats.accuracy) estimates the p-scale components from the mean squares
of a measured run. With 2 or 3 seeds per row the seed term rests on 2-4 degrees of freedom: it comes out
0 in a good share of pilots, and a power computed from those point estimates is optimistic (+4.5 points
on average at 3 seeds, up to +10.8, on the grid of docs/statistics.md).

The pilot keeps the mean squares behind each component (`Pilot`, pooled over the rows measured):

    V_seed    the variance over seeds of a row's avg@k      f_seed     = sum over rows of (S_r - 1)
    R         the two-way residual mean square per cell     f_resid    = sum over rows of (S_r - 1)(n - 1)
    V_diff    the variance over problems of the paired,     f_problem  = (rows - 1)(n - 1): the row x
              seed-averaged difference                                   problem contrasts of the rows
    s         per-cell sampling variance p(1-p)/k           held fixed (the binomial noise, known from k)

As in harness.reports.stats.crossed, a mean square m with f df has the fiducial distribution (the
posterior under the scale-invariant prior 1/sigma^2) m f / chi2_f. `harness plan` takes every mean square
at its median m f / chi2_f(0.5) (`component_median`): a median-unbiased estimate of its expectation
(P(m f / chi2_f(0.5) <= E m) = 1/2 exactly), larger than m by f / chi2_f(0.5) (1.44 at 2 df, 1.19 at 4),
then the components with the estimator's own subtractions, truncated at 0:

    interaction^2 = max(0, R - s)                 seed_sd^2 = max(0, V_seed - R / n)
    problem_sd^2  = max(0, V_diff - R share)      share = mean over the pairs of 1/S_a + 1/S_b

The power is monotone in each of them, so the power at the medians is the median-unbiased power where
one mean square decides it. `component_draws` gives 64 stratified fiducial draws instead; the power
averaged over them (the expected power given the pilot, "assurance") was the plan before: it is pulled
towards 50% and measured 5.9 points conservative on average at 5 seeds (docs/statistics.md compares the
three estimators). The mean accuracy and p(1-p) are held at their estimates (hundreds of cells each).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy.stats import chi2

from harness.reports.stats.components import Components, Pilot

DRAWS = 64  # component draws per plan (stratified: each mean square's draws are its chi-square quantiles)


def pilot_from(stats: list[tuple[int, int, float, float, float]], pairs: list[tuple[float, int, float]]) -> Pilot:
    """Pool the rows' mean squares: `stats` one (S, n, V_seed, R, s) per row, `pairs` one (V_diff, shared
    problems, 1/S_a + 1/S_b) per pair of rows. Weights are the degrees of freedom."""
    seeded = [(S - 1, v) for S, _, v, _, _ in stats if S >= 2]
    resid = [((S - 1) * (n - 1), r) for S, n, _, r, _ in stats if S >= 2 and n >= 2]
    pool = lambda parts: sum(f * v for f, v in parts) / sum(f for f, _ in parts) if parts else math.nan  # noqa: E731
    return Pilot(
        seed_spread=pool(seeded),
        seed_df=sum(f for f, _ in seeded),
        residual=pool(resid),
        residual_df=sum(f for f, _ in resid),
        sampling=float(np.mean([s for *_, s in stats])),
        difference_spread=float(np.mean([v for v, _, _ in pairs])) if pairs else math.nan,
        problem_df=(len(stats) - 1) * (max((m for _, m, _ in pairs), default=1) - 1),
        share=float(np.mean([w for *_, w in pairs])) if pairs else math.nan,
    )


def _pivots(df: int, position: int, draws: int) -> np.ndarray:
    """[draws] of chi2_df / df: stratified quantiles, shuffled in an order fixed by (df, position) so that
    the three mean squares are drawn independently."""
    quantiles = chi2.ppf((np.arange(draws) + 0.5) / draws, df) / df
    return np.random.default_rng([df, position, draws]).permutation(quantiles)


def component_median(c: Components) -> Components:
    """The components recomputed from each mean square's fiducial median m f / chi2_f(0.5) (truncated at 0
    as the draws are): a plug-in estimate, measured against the averaged plan in docs/statistics.md."""
    p = c.pilot
    if p is None or not (p.seed_df > 0 and p.residual_df > 0 and p.problem_df > 0):
        return c
    median = lambda m, f: m * f / chi2.ppf(0.5, f)  # noqa: E731
    r, v, d = (
        median(p.residual, p.residual_df),
        median(p.seed_spread, p.seed_df),
        median(p.difference_spread, p.problem_df),
    )
    return replace(
        c,
        seed_sd=math.sqrt(max(0.0, v - r / c.problems)),
        interaction_sd=math.sqrt(max(0.0, r - p.sampling)),
        problem_sd=math.sqrt(max(0.0, d - r * p.share)),
        pilot=None,
    )


def component_draws(c: Components, draws: int = DRAWS) -> list[Components]:
    """`draws` Components, each the pilot's components recomputed from one fiducial draw of its mean
    squares (module docstring); without a pilot of 2+ seeds and 2 rows, the point estimates alone."""
    p = c.pilot
    if p is None or not (p.seed_df > 0 and p.residual_df > 0 and p.problem_df > 0):
        return [c]
    n = c.problems
    residual = p.residual / _pivots(p.residual_df, 0, draws)
    seed = p.seed_spread / _pivots(p.seed_df, 1, draws)
    spread = p.difference_spread / _pivots(p.problem_df, 2, draws)
    out = []
    for r, v, d in zip(residual, seed, spread):
        out.append(replace(
            c,
            seed_sd=math.sqrt(max(0.0, v - r / n)),
            interaction_sd=math.sqrt(max(0.0, r - p.sampling)),
            problem_sd=math.sqrt(max(0.0, d - r * p.share)),
            pilot=None,
        ))  # fmt: skip
    return out
