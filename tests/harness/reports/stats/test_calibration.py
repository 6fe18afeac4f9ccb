"""The statistics hold their level on simulated tables with a known truth (harness.reports.stats.calibration).

A small grid (four designs: 3 and 5 seeds, 30/40/500 problems, k 4 and 32, base accuracy 0.3 and 0.9),
fixed seeds, 1000 tables per figure (the batched test of harness.reports.stats.stacked, checked here to
give the reports' own p-values). The bounds are the issue's, widened by two Monte Carlo standard errors
at this table count (stated per assertion); tests/perf/bench_stats_calibration.py runs the full grid and
docs/statistics.md records its figures.
"""

import math
from dataclasses import replace

import numpy as np
import pytest

from harness.reports.stats.accuracy import components_from, difference, paired_difference
from harness.reports.stats.calibration import (
    SMALL_GRID,
    coverage,
    family_error,
    groups_outside,
    monte_carlo_error,
    type_one,
)
from harness.reports.stats.logit_fit import LogitModel, logit_shift, simulated_power
from harness.reports.stats.power import logit_model, power_of
from harness.reports.stats.simulate import (
    Design,
    as_row_scores,
    mean_accuracy,
    simulate,
    simulate_tables,
    true_difference,
)
from harness.reports.stats.stacked import covers, holm, p_values


def test_the_truth_of_the_generative_model():
    """Equal rows differ by 0 exactly; a positive logit shift raises accuracy; quadrature against draws."""
    design = Design(30, 3, 4, 0.3)
    assert true_difference(design, 0.0) == 0.0 and true_difference(design, 0.3) > 0
    rng = np.random.default_rng(0)
    drawn = np.mean([simulate(design, [0.3], rng).mean() for _ in range(400)])
    assert drawn == pytest.approx(mean_accuracy(design, 0.3), abs=0.01)


def test_the_batched_test_is_the_reports_test_table_by_table():
    """p-values of 40 tables at once equal paired_difference's one by one; coverage is the interval's."""
    design = Design(30, 3, 4, 0.9)
    tables = simulate_tables(design, [0.3, 0.0], np.random.default_rng(7), 40)
    blocks = tables[:, 0] - tables[:, 1]
    one_by_one = [paired_difference([b]) for b in blocks]
    assert p_values(blocks) == pytest.approx([d.p_value for d in one_by_one], abs=1e-12)
    truth = true_difference(design, 0.3)
    assert list(covers(blocks, truth)) == [d.low <= 100 * truth <= d.high for d in one_by_one]
    assert holm(np.array([[0.01, 0.04, 0.03]])).tolist() == [[0.03, 0.06, 0.06]]  # by hand: 3p, 2p, then max


@pytest.mark.parametrize("design", SMALL_GRID, ids=lambda d: d.label())
def test_coverage_and_type_one_error(design):
    tables = 1000
    error = monte_carlo_error(0.95, tables)  # 0.007
    assert 0.93 - 2 * error <= coverage(design, 0.3, tables) <= 0.97 + 2 * error
    assert type_one(design, tables) <= 0.06 + 2 * monte_carlo_error(0.06, tables)


@pytest.mark.parametrize("design", SMALL_GRID[::3], ids=lambda d: d.label())
def test_family_error_of_four_null_claims_and_groups_of_six_equal_rows(design):
    """Holm over four null claims, and six equal rows on a leaderboard: at most 5% (+2 MC errors)."""
    tables = 1000
    assert family_error(design, tables) <= 0.05 + 2 * monte_carlo_error(0.05, tables)
    assert groups_outside(design, tables) <= 0.07 + 2 * monte_carlo_error(0.07, tables)


def test_the_plan_fits_the_logit_model_and_simulates_its_power():
    """A large pilot (64 seeds x 2000 problems, k 32) of the grid's model, its two rows 0.8 logits apart
    about base 0.9: the fitted logit sds come back within 0.1 (truth 1.5, 0.4, 0.2, 0.3; the rows' own gap
    is not read as row x problem spread), the shift that gives the rows' difference comes back as 0.8, and
    the plan's power at a small design matches the power simulated from the truth within 5 points (400
    and 1000 tables: MC error about 2.5 points; the pilot's draws are tight at this size)."""
    truth = Design(2000, 64, 32, 0.9)
    pilot = simulate_tables(truth, [0.4, -0.4], np.random.default_rng(11), 1)[0]
    rows = {f"row{r}": as_row_scores(pilot[r]) for r in range(2)}
    components = components_from(rows, "b", 32)
    model = logit_model(replace(components, pilot=None))
    fitted = (model.difficulty_sd, model.row_problem_sd, model.seed_sd, model.interaction_sd)
    assert fitted == pytest.approx((1.5, 0.4, 0.2, 0.3), abs=0.1) and model.base == pytest.approx(0.9, abs=0.02)
    design = Design(40, 3, 4, 0.9)
    difference = 100 * (mean_accuracy(design, 0.4) - mean_accuracy(design, -0.4))
    assert logit_shift(model, difference / 100) == pytest.approx(0.8, abs=0.1)
    simulated = simulated_power(LogitModel(0.9, 1.5, 0.4, 0.2, 0.3), difference, 3, 4, 40, tables=1000)
    assert power_of(components, difference, 3, 4, problems=40) == pytest.approx(simulated, abs=0.05)


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
