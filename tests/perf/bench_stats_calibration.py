"""The statistics against simulated tables with a known truth, over the full grid (prints the table).

    python tests/perf/bench_stats_calibration.py [TABLES]      # default 200 tables per figure

Grid (harness.reports.stats.calibration.GRID): 30, 40 and 500 problems x 3 and 5 seeds x k 4 and 32 x
base accuracy 0.3 and 0.9 (24 designs; logit sds: difficulty 1.5, row x problem 0.4, seed 0.2,
seed x problem 0.3). Per design: coverage of the 95% interval at a logit shift of 0.3, type-I error of
one claim, Holm's family-wise error over four null claims, how often six equal rows leave some row
outside group 1, and `harness plan`'s power against the simulated power at a logit shift of 0.8.
docs/statistics.md records a run of this script.
"""

import sys
import time

from harness.reports.stats.calibration import (
    GRID,
    coverage,
    family_error,
    groups_outside,
    monte_carlo_error,
    planned_power,
    simulated_power,
    type_one,
)

POWER_SHIFT = 0.8  # logits


def main(tables: int) -> None:
    print(f"{tables} tables per figure; Monte Carlo se at 0.95: {monte_carlo_error(0.95, tables):.3f}, "
          f"at 0.05: {monte_carlo_error(0.05, tables):.3f}")  # fmt: skip
    header = f"{'design':<40} coverage  type-I  FWER(4)  groups(6)  power sim  plan   plan-sim  seconds"
    print(header)
    figures = {"coverage": [], "type_one": [], "fwer": [], "groups": [], "power_error": []}
    for design in GRID:
        start = time.perf_counter()
        row = {
            "coverage": coverage(design, 0.3, tables),
            "type_one": type_one(design, tables),
            "fwer": family_error(design, tables),
            "groups": groups_outside(design, tables),
        }
        simulated, planned = simulated_power(design, POWER_SHIFT, tables), planned_power(design, POWER_SHIFT)
        for name, value in row.items():
            figures[name].append(value)
        figures["power_error"].append(100 * (planned - simulated))
        print(
            f"{design.label():<40} {row['coverage']:8.3f}  {row['type_one']:6.3f}  {row['fwer']:7.3f}  "
            f"{row['groups']:9.3f}  {simulated:9.3f}  {planned:5.3f}  {100 * (planned - simulated):+8.1f}  "
            f"{time.perf_counter() - start:7.1f}",
            flush=True,
        )
    for name, values in figures.items():
        print(f"{name}: {min(values):.3f} to {max(values):.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
