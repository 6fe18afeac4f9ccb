"""The statistics hold their level on simulated tables with a known truth (harness.reports.stats.calibration).

A small grid (four designs: 3 and 5 seeds, 30/40/500 problems, k 4 and 32, base accuracy 0.3 and 0.9),
fixed seeds, 100-200 tables per figure. The bounds are the issue's, widened by about two Monte Carlo
standard errors at this table count (stated per assertion); tests/perf/bench_stats_calibration.py runs
the full grid and docs/statistics.md records its figures.
"""

import math

import numpy as np
import pytest

from harness.reports.stats.accuracy import difference, paired_difference
from harness.reports.stats.calibration import (
    SMALL_GRID,
    coverage,
    family_error,
    groups_outside,
    monte_carlo_error,
    type_one,
)
from harness.reports.stats.simulate import Design, mean_accuracy, simulate, true_difference


def test_the_truth_of_the_generative_model():
    """Equal rows differ by 0 exactly; a positive logit shift raises accuracy; quadrature against draws."""
    design = Design(30, 3, 4, 0.3)
    assert true_difference(design, 0.0) == 0.0 and true_difference(design, 0.3) > 0
    rng = np.random.default_rng(0)
    drawn = np.mean([simulate(design, [0.3], rng).mean() for _ in range(400)])
    assert drawn == pytest.approx(mean_accuracy(design, 0.3), abs=0.01)


@pytest.mark.parametrize("design", SMALL_GRID, ids=lambda d: d.label())
def test_coverage_and_type_one_error(design):
    tables = 200
    error = monte_carlo_error(0.95, tables)  # 0.015
    assert 0.93 - 2 * error <= coverage(design, 0.3, tables) <= 0.97 + 2 * error
    assert type_one(design, tables) <= 0.06 + 2 * monte_carlo_error(0.06, tables)


def test_family_error_of_four_null_claims_and_groups_of_six_equal_rows():
    """Holm over four null claims, and six equal rows on a leaderboard: at most 5% (+2 MC errors)."""
    tables = 100
    for design in SMALL_GRID[:2]:
        assert family_error(design, tables) <= 0.05 + 2 * monte_carlo_error(0.05, tables)
        assert groups_outside(design, tables) <= 0.07 + 2 * monte_carlo_error(0.07, tables)


def test_no_interval_wider_than_the_scale():
    """The issue's table (control all 0): the old df fell to 0.006 and the interval to +-2.3e153 points."""
    table = [[0.25, 0.75, 0.0], [1.0, 0.0, 1.0], [0.75, 1.0, 1.0]]  # seeds x problems
    treatment = {"b": {s: {f"p{i}": v for i, v in enumerate(r)} for s, r in enumerate(table)}}
    control = {"b": {s: {f"p{i}": 0.0 for i in range(3)} for s in range(3)}}
    d = difference(treatment, control, ["b"])
    assert d.mean == pytest.approx(63.9, abs=0.05)
    assert -100.0 <= d.low < d.mean < d.high <= 100.0 and d.covers_zero() and d.p_value > 0.05


def test_the_interval_moves_continuously_when_the_seed_spread_falls_below_the_residual():
    """No jump where the old rule dropped the seed term (MS_seed = MS_resid, crossed on the way here; its
    df then went from about 2 to 29 at once): the width grows with the seed spread, smoothly (second
    differences small against first ones), never shrinking."""
    rng = np.random.default_rng(1)
    base = rng.normal(0.0, 0.2, (3, 30))
    widths = []
    for step in np.linspace(0.0, 0.1, 41):
        block = base + np.array([[step], [0.0], [-step]])
        d = paired_difference([block])
        widths.append(d.high - d.low)
    steps = np.diff(widths)
    assert all(math.isfinite(w) for w in widths) and min(steps) > 0
    assert max(np.abs(np.diff(steps))) < 0.25 * max(steps)
