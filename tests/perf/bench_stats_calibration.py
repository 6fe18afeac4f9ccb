"""The statistics against simulated tables with a known truth, over the full grid (prints the table).

    python tests/perf/bench_stats_calibration.py [TABLES] [PILOTS]   # default 1000 tables, 20 pilots

Grid (harness.reports.stats.calibration.GRID): 30, 40 and 500 problems x 3 and 5 seeds x k 4 and 32 x
base accuracy 0.3 and 0.9 (24 designs; logit sds: difficulty 1.5, row x problem 0.4, seed 0.2,
seed x problem 0.3). Per design: coverage of the 95% interval at a logit shift of 0.3, type-I error of
one claim, Holm's family-wise error over four null claims, how often six equal rows leave some row
outside group 1, and `harness plan`'s power against the simulated power at a logit shift of 0.8: the
plan is given PILOTS simulated pilot tables of the design (one at a time; its power averaged over each
pilot's uncertainty in its components, harness.reports.stats.pilot), and its mean error over them (the
plan's bias) and their spread (what one pilot's noise does) are printed.
docs/statistics.md records a run of this script.
"""

import statistics
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


def main(tables: int, pilots: int) -> None:
    print(f"{tables} tables per figure; Monte Carlo se at 0.95: {monte_carlo_error(0.95, tables):.3f}, "
          f"at 0.05: {monte_carlo_error(0.05, tables):.3f}; plan: {pilots} pilot tables per design")  # fmt: skip
    header = f"{'design':<40} coverage  type-I  FWER(4)  groups(6)  power sim  plan mean  plan-sim  pilot sd  seconds"
    print(header)
    figures = {"coverage": [], "type_one": [], "fwer": [], "groups": [], "plan_minus_sim": [], "pilot_sd": []}
    for design in GRID:
        start = time.perf_counter()
        row = {
            "coverage": coverage(design, 0.3, tables),
            "type_one": type_one(design, tables),
            "fwer": family_error(design, tables),
            "groups": groups_outside(design, tables),
        }
        simulated = simulated_power(design, POWER_SHIFT, tables)
        planned = [planned_power(design, POWER_SHIFT, pilot) for pilot in range(pilots)]
        row["plan_minus_sim"] = 100 * (statistics.fmean(planned) - simulated)
        row["pilot_sd"] = 100 * statistics.stdev(planned)
        for name, value in row.items():
            figures[name].append(value)
        print(
            f"{design.label():<40} {row['coverage']:8.3f}  {row['type_one']:6.3f}  {row['fwer']:7.3f}  "
            f"{row['groups']:9.3f}  {simulated:9.3f}  {statistics.fmean(planned):9.3f}  {row['plan_minus_sim']:+8.1f}  "
            f"{row['pilot_sd']:8.1f}  {time.perf_counter() - start:7.1f}",
            flush=True,
        )
    for name, values in figures.items():
        print(f"{name}: {min(values):.3f} to {max(values):.3f} (mean {statistics.fmean(values):.3f})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, int(sys.argv[2]) if len(sys.argv) > 2 else 20)
