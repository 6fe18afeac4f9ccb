"""`harness plan`'s power from one pilot table, three ways, against the simulated power (docs/statistics.md).

    python tests/perf/bench_plan_estimators.py [PILOTS] [AVERAGED] [ESTIMATORS]
    # default 40 pilots for "median,point", the first 20 of them also "averaged"

Per design of harness.reports.stats.calibration.GRID: the simulated power of the reports' test at a logit
shift of 0.8 (1000 tables), and the plan's prediction from each of PILOTS simulated pilot tables of the
design (harness.reports.stats.calibration.planned_power) with the components estimated

- median: every mean square at its fiducial median (the plan's estimator, harness.reports.stats.pilot);
- point: the truncated moment estimates (components_from as measured);
- averaged: the power averaged over 64 fiducial draws of the mean squares (the expected power given the
  pilot; ~60 times the work, so on the first AVERAGED pilots only).

Printed: plan mean minus simulated power (points) and its Monte Carlo se (the pilots' spread / sqrt(pilots)
and the simulated power's binomial error, combined), then per estimator the range, the mean (3 and 5
seeds), the mean absolute error and how many designs are within 5 points.
"""

import math
import statistics
import sys
import time

from harness.reports.stats.calibration import GRID, planned_power, simulated_power

SHIFT = 0.8  # logits


def main(pilots: int, averaged: int, estimators: list[str]) -> None:
    errors: dict[str, list[tuple[str, float, float]]] = {e: [] for e in estimators}
    for design in GRID:
        start = time.perf_counter()
        simulated = simulated_power(design, SHIFT, 1000)
        cells = []
        for estimator in estimators:
            count = averaged if estimator == "averaged" else pilots
            plans = [planned_power(design, SHIFT, pilot, estimator) for pilot in range(count)]
            bias = 100 * (statistics.fmean(plans) - simulated)
            se = 100 * math.sqrt(statistics.variance(plans) / count + simulated * (1 - simulated) / 1000)
            errors[estimator].append((design.label(), bias, se))
            cells.append(f"{estimator} {bias:+6.1f} +- {se:.1f}")
        seconds = time.perf_counter() - start
        print(f"{design.label():<40} sim {simulated:.3f}  " + "  ".join(cells) + f"  ({seconds:.0f} s)", flush=True)
    for estimator, rows in errors.items():
        biases = [b for _, b, _ in rows]
        by_seeds = {s: statistics.fmean(b for label, b, _ in rows if f"S={s} " in label) for s in (3, 5)}
        print(
            f"{estimator}: {min(biases):+.1f} to {max(biases):+.1f}, mean {statistics.fmean(biases):+.1f} "
            f"(3 seeds {by_seeds[3]:+.1f}, 5 seeds {by_seeds[5]:+.1f}), mean |error| "
            f"{statistics.fmean(map(abs, biases)):.1f}, within 5 points {sum(abs(b) <= 5 for b in biases)} of 24"
        )


if __name__ == "__main__":
    arguments = sys.argv[1:] + [None] * 3
    main(
        int(arguments[0] or 40),
        int(arguments[1] or 20),
        (arguments[2] or "median,point,averaged").split(","),
    )
