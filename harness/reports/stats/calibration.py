"""How often the statistics are right, measured on simulated tables whose truth is known.

Every figure here is a frequency over `tables` tables drawn from harness.reports.stats.simulate, with
a numpy Generator seeded from the design, so a figure is reproducible. Its Monte Carlo standard error is
sqrt(f (1 - f) / tables) (0.007 at f = 0.95 with 1000 tables; `monte_carlo_error`).

- `coverage`: the 95% interval of one paired difference holds the true Delta (shift in logits).
- `type_one`: one claim on two equal rows is decided (its two-sided test rejects at 5%).
- `family_error`: four null claims as Table 1 makes them (two candidate rows against two baselines, all
  four rows equal), Holm-adjusted; any of them decided is a family-wise error.
- `groups_outside`: six equal rows on a leaderboard; some row left outside group 1.
- `simulated_power` / `planned_power`: the rejection rate at a true shift, and what `harness plan`
  predicts for it from a simulated pilot table of the design (the logit model fitted to its scores).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from harness.reports.stats.accuracy import components_from
from harness.reports.stats.logit_fit import simulated_power as fitted_power
from harness.reports.stats.pilot import component_draws
from harness.reports.stats.power import logit_model, power_of
from harness.reports.stats.simulate import Design, as_row_scores, simulate_tables, true_difference
from harness.reports.stats.stacked import CHUNK, covers, holm, p_values

ALPHA = 0.05
CLAIMS = ((2, 0), (2, 1), (3, 0), (3, 1))  # rows (treatment, control): CE-GPPO x2 against GRPO, DAPO


def _rng(design: Design, salt: int) -> np.random.Generator:
    key = [design.problems, design.seeds, design.samples, round(1000 * design.base), round(1000 * design.seed_sd)]
    return np.random.default_rng([*key, salt])


def monte_carlo_error(frequency: float, tables: int) -> float:
    return math.sqrt(frequency * (1 - frequency) / tables)


def design_tables(design: Design, shifts: list[float], salt: int, tables: int):
    """The design's tables in chunks ([chunk, rows, S, n] each), from its own seeded generator."""
    rng = _rng(design, salt)
    for start in range(0, tables, CHUNK):
        yield simulate_tables(design, shifts, rng, min(CHUNK, tables - start))


def coverage(design: Design, shift: float, tables: int) -> float:
    truth = true_difference(design, shift)
    held = sum(int(covers(t[:, 0] - t[:, 1], truth).sum()) for t in design_tables(design, [shift, 0.0], 1, tables))
    return held / tables


def simulated_power(design: Design, shift: float, tables: int, salt: int = 2) -> float:
    """The rejection rate of the two-sided 5% test of one claim at a true logit `shift` (0: its type-I error)."""
    chunks = design_tables(design, [shift, 0.0], salt, tables)
    return sum(int((p_values(t[:, 0] - t[:, 1]) < ALPHA).sum()) for t in chunks) / tables


def type_one(design: Design, tables: int) -> float:
    return simulated_power(design, 0.0, tables, salt=3)


def family_error(design: Design, tables: int) -> float:
    errors = 0
    for t in design_tables(design, [0.0] * 4, 4, tables):
        p = np.stack([p_values(t[:, a] - t[:, b]) for a, b in CLAIMS], axis=1)  # [chunk, 4]
        errors += int((holm(p).min(axis=1) < ALPHA).sum())
    return errors / tables


def groups_outside(design: Design, tables: int, rows: int = 6) -> float:
    """As accuracy.significance_groups on six equal rows: every pair's p-value, Holm over all pairs; some
    row is outside group 1 exactly when one of the leader's adjusted p-values is below ALPHA."""
    pairs = [(a, b) for a in range(rows) for b in range(a + 1, rows)]
    outside = 0
    for t in design_tables(design, [0.0] * rows, 5, tables):
        adjusted = holm(np.stack([p_values(t[:, a] - t[:, b]) for a, b in pairs], axis=1))  # [chunk, pairs]
        leader = np.argmax(t.mean(axis=(2, 3)), axis=1)  # ties to the first row, as the reports' label order
        with_leader = np.array([[leader_row in pair for pair in pairs] for leader_row in range(rows)])[leader]
        outside += int((with_leader & (adjusted < ALPHA)).any(axis=1).sum())
    return outside / tables


def planned_power(design: Design, shift: float, pilot: int = 0, estimator: str = "median") -> float:
    """What `harness plan` predicts for the power at a true logit `shift`, given what it would be given: a
    measured pilot table of the design (two rows at `shift` and 0, drawn with seed `pilot`), not the truth.
    Its components (`components_from`, with the mean accuracy and the mean squares behind them) are fitted
    by the logit model and the power simulated from that fit (harness.reports.stats.power.power_of). The
    `estimator` of the components (harness.reports.stats.pilot): "median" (the plan's: each mean square at
    its fiducial median), "point" (the truncated moment estimates) or "averaged" (the power averaged over
    64 fiducial draws: the plan before)."""
    table = simulate_tables(design, [shift, 0.0], _rng(design, 100 + pilot), 1)[0]
    rows = {f"row{r}": as_row_scores(table[r]) for r in range(2)}
    components = components_from(rows, "b", design.samples)
    difference, n = 100 * true_difference(design, shift), design.problems
    if estimator == "averaged":
        models = [logit_model(c) for c in component_draws(components)]
        return fitted_power(models, difference, design.seeds, design.samples, n, ALPHA)
    if estimator == "point":
        components = replace(components, pilot=None)
    return power_of(components, difference, design.seeds, design.samples, problems=n)


GRID = [  # 24 designs: the problems x seeds x k x base accuracy
    Design(n, S, k, base) for n in (30, 40, 500) for S in (3, 5) for k in (4, 32) for base in (0.3, 0.9)
]
SMALL_GRID = [Design(30, 3, 4, 0.3), Design(40, 3, 32, 0.9), Design(30, 5, 32, 0.9), Design(500, 3, 4, 0.3)]
