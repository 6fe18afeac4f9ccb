"""Why the 30-40-problem designs over-covered: the fiducial mixture's coverage with one part known at a time.

    python tests/perf/bench_coverage_terms.py [TABLES]     # default 4000 tables per design, 16 designs

Per design of the grid with 30 or 40 problems (harness.reports.stats.calibration.GRID), the tables of the
coverage figure (logit shift 0.3), and the 95% interval of harness.reports.stats.crossed rebuilt from the
three mean squares (MS_seed, MS_problem, MS_resid on the cell scale; their means over the tables stand in
for their expectations) in these variants:

- mixture: the fiducial mixture as the reports printed it before (every mean square drawn, problem term
  truncated at 0 draw by draw);
- seed known: MS_seed held at its expectation, the problem terms drawn;
- problems known: MS_problem and MS_resid held at their expectations, MS_seed drawn;
- no truncation: the problem term not cut at 0 in the draws;
- normal tables: the mixture on tables of independent chi-square mean squares and a normal error with
  the same expectations (the procedure alone, no Bernoulli data);
- z, true variance: estimate +- 1.96 sqrt(true variance) (is the estimate normal, is the truth right?);
- Welch-Aspin: the reports' interval now (harness.reports.stats.welch_aspin).

Shares: of the variance of the mean, the seed term's and the problem term's (net of the residual).
docs/statistics.md records a run.
"""

import sys
import time

import numpy as np
from scipy.special import ndtr

from harness.reports.stats.calibration import GRID, design_tables
from harness.reports.stats.crossed import fiducial
from harness.reports.stats.simulate import true_difference
from harness.reports.stats.stacked import covers


def mean_squares(blocks: np.ndarray):
    """MS_seed, MS_problem, MS_resid per table of [T, S, n] blocks (cell scale)."""
    _, S, n = blocks.shape
    seed = blocks.mean(axis=2).var(axis=1, ddof=1) * n
    problem = blocks.mean(axis=1).var(axis=1, ddof=1) * S
    r = blocks - blocks.mean(2, keepdims=True) - blocks.mean(1, keepdims=True) + blocks.mean((1, 2), keepdims=True)
    return seed, problem, (r**2).sum((1, 2)) / ((S - 1) * (n - 1))


def mixture_covers(error, squares, S, n, known=(), truncate=True):
    """Whether the fiducial mixture's 95% interval holds the truth (error = estimate - truth); squares in
    `known` are not drawn. Draw positions as crossed.paired_terms: problem 0, residual 1, seed 2."""
    df = {"seed": S - 1, "problem": n - 1, "resid": (S - 1) * (n - 1)}
    position = {"problem": 0, "resid": 1, "seed": 2}
    drawn = {
        k: v[:, None] if k in known else v[:, None] / fiducial(df[k], position[k])[None, ::2]
        for k, v in squares.items()
    }
    problem = drawn["problem"] - drawn["resid"]
    variance = (drawn["seed"] + (np.maximum(problem, 0.0) if truncate else problem)) / (S * n)
    return 2 * ndtr(-np.abs(error)[:, None] / np.sqrt(np.maximum(variance, 1e-30))).mean(axis=1) >= 0.05


def main(tables: int) -> None:
    print(f"{tables} tables per design; Monte Carlo se at 0.95: {np.sqrt(0.95 * 0.05 / tables):.4f}")
    names = ["mixture", "seed known", "problems known", "no truncation", "normal tables", "z true var", "Welch-Aspin"]
    print(f"{'design':<28} " + " ".join(f"{x:>14}" for x in names) + "  share seed  share problem")
    for design in [d for d in GRID if d.problems < 100]:
        start = time.perf_counter()
        truth, S, n = true_difference(design, 0.3), design.seeds, design.problems
        blocks = np.concatenate([t[:, 0] - t[:, 1] for t in design_tables(design, [0.3, 0.0], 1, tables)])
        seed, problem, resid = mean_squares(blocks)
        squares = {"seed": seed, "problem": problem, "resid": resid}
        expected = {k: np.full(tables, v.mean()) for k, v in squares.items()}
        variance = (seed.mean() + problem.mean() - resid.mean()) / (S * n)
        error = blocks.mean(axis=(1, 2)) - truth
        rng = np.random.default_rng(5)
        draws = {
            k: v.mean() * rng.chisquare(f, tables) / f
            for (k, v), f in zip(squares.items(), (S - 1, n - 1, (S - 1) * (n - 1)))
        }
        row = [
            mixture_covers(error, squares, S, n),
            mixture_covers(error, {**squares, "seed": expected["seed"]}, S, n, known=("seed",)),
            mixture_covers(
                error,
                {**squares, "problem": expected["problem"], "resid": expected["resid"]},
                S,
                n,
                known=("problem", "resid"),
            ),
            mixture_covers(error, squares, S, n, truncate=False),
            mixture_covers(rng.standard_normal(tables) * np.sqrt(variance), draws, S, n),
            np.abs(error) <= 1.959964 * np.sqrt(variance),
            covers(blocks, truth),
        ]
        shares = (seed.mean() / (S * n) / variance, (problem.mean() - resid.mean()) / (S * n) / variance)
        figures = " ".join(f"{np.mean(x):14.3f}" for x in row)
        seconds = time.perf_counter() - start
        label = design.label()[:28]
        print(f"{label:<28} {figures}  {shares[0]:10.2f}  {shares[1]:13.2f}  ({seconds:.0f} s)", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
