"""The numbers a plan is made from: a benchmark's variance components and the pilot's mean squares behind them.

`Components` (per benchmark, in score units) is what `harness plan` and Table 1's detectable-difference line
compute power from (harness.reports.stats.power, the formula in its docstring); `Pilot` keeps the mean
squares of the measured run they were estimated from, so that the power can average over what the pilot does
not know (harness.reports.stats.pilot). Data only: both modules import these, neither imports the other's
callers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Pilot:  # the mean squares of a measured run (fractions^2): harness.reports.stats.pilot
    seed_spread: float
    seed_df: int
    residual: float
    residual_df: int
    sampling: float
    difference_spread: float
    problem_df: int
    share: float  # mean over the pairs of rows of 1/S_a + 1/S_b: the residual a seed-averaged difference carries


@dataclass(frozen=True)
class Components:  # per benchmark, in score units (fractions); the formula in harness.reports.stats.power
    seed_sd: float  # sd of a row's per-seed avg@k about its mean (training seeds), net of evaluation noise
    problem_sd: float  # sd over problems of the paired per-problem difference (expected accuracies)
    sample_var: float  # mean within-problem Bernoulli variance p(1-p)
    problems: int
    samples: int
    seeds: int
    interaction_sd: float = 0.0  # a row's seed x problem deviation beyond sampling (added to the contract)
    mean: float = math.nan  # mean accuracy of the rows measured; set, power comes from the fitted logit model
    difference: float = 0.0  # the measured rows' spread of mean accuracy (2 sd of their means; fraction)
    pilot: Pilot | None = None  # the mean squares they were measured from: the power averages over their draws
