"""Tables with a known truth: the generative model the statistics are checked against.

One benchmark, R rows (training recipes), S training seeds, n problems, k samples per problem. On the logit
scale the probability that row r, trained with seed s, solves problem i is

    logit p[r, s, i] = logit(base) + shift[r]      base accuracy, the row's true effect
                     + d[i]                        problem difficulty (shared by every row)
                     + c[r, i]                     the row's own luck on that problem
                     + u[r, s]                     training seed: the run's whole-benchmark shift
                     + w[r, s, i]                  that run's own luck on that problem

with d, c, u, w independent normal with sds `difficulty_sd`, `row_problem_sd`, `seed_sd`, `interaction_sd`,
and a score is the mean of k Bernoulli(p) samples. Problems and seeds are drawn afresh for every table, so
the truth a 95% interval must cover is the population difference

    Delta = E[sigmoid(mu + shift_T + sigma Z)] - E[sigmoid(mu + shift_C + sigma Z)],
    sigma^2 = difficulty_sd^2 + row_problem_sd^2 + seed_sd^2 + interaction_sd^2   (Z standard normal)

computed by Gauss-Hermite quadrature (`true_difference`). Rows with equal shifts have Delta = 0 exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Design:
    problems: int
    seeds: int
    samples: int  # k
    base: float  # accuracy at logit effect 0
    seed_sd: float = 0.2  # logit
    interaction_sd: float = 0.3
    row_problem_sd: float = 0.4
    difficulty_sd: float = 1.5

    def label(self) -> str:
        return f"n={self.problems} S={self.seeds} k={self.samples} base={self.base:g} seed_sd={self.seed_sd:g}"


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def simulate(design: Design, shifts: list[float], rng: np.random.Generator) -> np.ndarray:
    """Scores of len(shifts) rows, shape [rows, seeds, problems]: each row's shift in logits (same problems)."""
    R, S, n = len(shifts), design.seeds, design.problems
    logit = _logit(design.base) + np.asarray(shifts, dtype=float)[:, None, None]  # [R, 1, 1]
    logit = logit + rng.normal(0.0, design.difficulty_sd, n)[None, None, :]  # d[i]
    logit = logit + rng.normal(0.0, design.row_problem_sd, (R, 1, n))  # c[r, i]
    logit = logit + rng.normal(0.0, design.seed_sd, (R, S, 1))  # u[r, s]
    logit = logit + rng.normal(0.0, design.interaction_sd, (R, S, n))  # w[r, s, i]
    p = 1.0 / (1.0 + np.exp(-logit))
    return rng.binomial(design.samples, p) / design.samples  # [R, S, n]


_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(80)  # probabilists' Hermite: E[f(Z)], Z ~ N(0, 1)


def mean_accuracy(design: Design, shift: float = 0.0) -> float:
    """E[p] over problems and seeds of a row with logit `shift` (quadrature, error far below 1e-6)."""
    sigma = math.sqrt(design.difficulty_sd**2 + design.row_problem_sd**2 + design.seed_sd**2 + design.interaction_sd**2)
    z = _logit(design.base) + shift + sigma * _NODES
    return float(np.sum(_WEIGHTS / (1.0 + np.exp(-z))) / math.sqrt(2 * math.pi))


def true_difference(design: Design, shift: float) -> float:
    """Delta (a fraction) of a row with logit `shift` over a row with none: the target of every interval."""
    return mean_accuracy(design, shift) - mean_accuracy(design, 0.0)


def as_row_scores(scores: np.ndarray, benchmark: str = "b") -> dict:
    """One simulated row [seeds, problems] in the reports' form {benchmark: {seed: {problem: score}}}."""
    return {benchmark: {s: {f"p{i}": float(v) for i, v in enumerate(row)} for s, row in enumerate(scores)}}


def simulate_tables(design: Design, shifts: list[float], rng: np.random.Generator, tables: int) -> np.ndarray:
    """`tables` independent tables at once, shape [tables, rows, seeds, problems] (the model of `simulate`,
    every effect drawn afresh per table)."""
    R, S, n = len(shifts), design.seeds, design.problems
    logit = _logit(design.base) + np.asarray(shifts, dtype=float)[None, :, None, None]  # [1, R, 1, 1]
    logit = logit + rng.normal(0.0, design.difficulty_sd, (tables, 1, 1, n))  # d[i]
    logit = logit + rng.normal(0.0, design.row_problem_sd, (tables, R, 1, n))  # c[r, i]
    logit = logit + rng.normal(0.0, design.seed_sd, (tables, R, S, 1))  # u[r, s]
    logit = logit + rng.normal(0.0, design.interaction_sd, (tables, R, S, n))  # w[r, s, i]
    return rng.binomial(design.samples, 1.0 / (1.0 + np.exp(-logit))) / design.samples
