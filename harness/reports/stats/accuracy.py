"""Accuracy differences you can cite: paired intervals and p-values, Holm, significance groups, budgets.

Data: `scores[benchmark][seed][problem]` = the mean of a problem's k graded samples (a fraction). The
design is CROSSED: every training seed is evaluated on the same problems, and two rows are paired when
they share seeds (run i of every row uses seed i) and problems. A row's avg@k on a benchmark is the mean
over seeds and problems; Avg the unweighted mean over benchmarks. Differences: treatment - control, in
percentage points.

The interval (`difference`). Per benchmark, D[s, i] = treatment - control on seed s, problem i. Seeds
and problems are both samples (of training runs, of problems like these), so

    D[s, i] = Delta + u[s] + v[i] + r[s, i]     seed shift, problem effect, seed x problem + sampling
    Var(mean D) = var(u)/S + var(v)/n + var(r)/(S n)

which the two-way ANOVA mean squares estimate without bias: (MS_seed + MS_problem - MS_resid) / (S n).
For Avg the seed term comes from the per-seed Avg (a seed's shift is shared by its benchmarks) and the
problem terms add over benchmarks (divided by J^2). The estimator and its interval live in
harness.reports.stats.crossed: the seed term is the whole MS_seed (never truncated), the problem term is
net of the residual; with 3+ paired seeds the interval is estimate +- c SE with the Welch-Aspin critical
value c at the estimated seed share (its size is the level whatever the share: harness.reports.stats.
welch_aspin), otherwise a normal mixture over the mean squares' fiducial draws (Student's t with the
design's own df where one mean square dominates; no plugged-in df); cut to +-100 points. The p-value
comes from the same test, so p < 1 - level exactly when the interval excludes 0. One shared seed:
problems only; the interval then holds for that training run and says nothing of seed-to-seed variation
(the method text says so). Rows without shared seeds but with the same problems keep the problems paired
(seed terms of each row added: "unpaired seeds, paired problems"); rows without shared problems are
compared as two independent means.

Measured coverage, type-I error, Holm's family-wise error and groups under the null: docs/statistics.md
(harness.reports.stats.calibration, tests/perf/bench_stats_calibration.py).

Groups (`significance_groups`): ranked by Avg; the leader and every row whose difference to it is not
significant after Holm's correction over all pairs of rows form group 1, the best row left opens group 2
on the same rule, and so on. Power and budgets: harness.reports.stats.power (its docstring
has the formula), re-exported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.reports.stats.crossed import Square, interval, paired_terms, problem_term, residual_square, seed_term
from harness.reports.stats.pilot import pilot_from
from harness.reports.stats.power import (  # noqa: F401  (re-exported: the contract's one import path)
    PAPER_ASSUMPTIONS,
    Components,
    budget,
    minimum_detectable_difference,
    power_of,
)

Scores = dict[int, dict[str, float]]  # seed -> problem id -> per-problem score (mean of its k samples)
RowScores = dict[str, Scores]  # benchmark -> Scores
HOLM = "Holm-Bonferroni"


@dataclass(frozen=True)
class Difference:
    mean: float  # points, treatment - control
    low: float
    high: float
    seeds: int
    problems: int  # summed over benchmarks
    paired: bool
    method: str
    p_value: float  # two-sided, H0: difference = 0
    se: float = math.nan  # points: the standard error (added to the contract)
    df: float = math.nan  # Satterthwaite's df at the estimate, for reading only (the interval does not use it)

    def covers_zero(self) -> bool:
        return self.low <= 0.0 <= self.high

    def text(self) -> str:
        return f"{self.mean:+.1f} [{self.low:+.1f}, {self.high:+.1f}]"


def _seeds(row: RowScores, benchmarks: Sequence[str]) -> set[int]:
    sets = [set(row.get(b, {})) for b in benchmarks]
    return set.intersection(*sets) if sets else set()


def _problems(rows: Sequence[RowScores], benchmark: str, seeds: Sequence[int]) -> list[str]:
    """Problems every given seed of every given row has, sorted (a fixed order keeps runs reproducible)."""
    sets = [set(row[benchmark][s]) for row in rows for s in seeds]
    return sorted(set.intersection(*sets)) if sets else []


def _matrix(row: RowScores, benchmark: str, seeds: Sequence[int], problems: Sequence[str]) -> np.ndarray:
    return np.array([[row[benchmark][s][p] for p in problems] for s in seeds], dtype=float)


def _residual(block: np.ndarray, J: int, name: str) -> list[Square]:
    """The residual mean square a problem term takes out: [] unless the block has 2+ seeds and 2+ problems."""
    return [residual_square(block, J, name)] if min(block.shape) >= 2 else []


def paired_difference(blocks: list[np.ndarray], level: float = 0.95) -> Difference:
    """The paired difference from its seeds x problems blocks D = treatment - control, one per benchmark
    (the same seeds in each; fractions): what `difference` computes once the scores are lined up."""
    estimate = float(np.mean([d.mean() for d in blocks]))
    return _difference(
        estimate, paired_terms(blocks), blocks[0].shape[0], sum(d.shape[1] for d in blocks), "paired", level
    )


def difference(
    treatment: RowScores,
    control: RowScores,
    benchmarks: Sequence[str],
    *,
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> Difference:
    """treatment - control on the mean over `benchmarks` of avg@k (points); see the module docstring. The
    closed form needs no `resamples` or `seed` (kept for callers of the contract's bootstrap signature)."""
    if isinstance(benchmarks, str):
        benchmarks = [benchmarks]
    if not benchmarks:
        raise ValueError("difference over no benchmarks")
    J, shared = len(benchmarks), sorted(_seeds(treatment, benchmarks) & _seeds(control, benchmarks))
    problems = {b: _problems([treatment, control], b, shared) for b in benchmarks}
    if shared and all(len(p) >= 2 for p in problems.values()):  # paired: one D block per benchmark
        blocks = [
            _matrix(treatment, b, shared, problems[b]) - _matrix(control, b, shared, problems[b]) for b in benchmarks
        ]
        return paired_difference(blocks, level)
    own = [sorted(_seeds(row, benchmarks)) for row in (treatment, control)]
    if not all(own):
        raise ValueError("a row has no seed evaluated on every benchmark asked for")
    common = {
        b: sorted(set(_problems([treatment], b, own[0])) & set(_problems([control], b, own[1]))) for b in benchmarks
    }
    if all(len(p) >= 2 for p in common.values()):  # other seeds, same problems: pair the problems only
        sides = [
            [_matrix(row, b, seeds, common[b]) for b in benchmarks] for row, seeds in zip((treatment, control), own)
        ]
        estimate = float(np.mean([t.mean() - c.mean() for t, c in zip(*sides)]))
        vectors = [t.mean(axis=0) - c.mean(axis=0) for t, c in zip(*sides)]
        residuals = [[_residual(m, J, f"resid{t}.{j}") for j, m in enumerate(side)] for t, side in enumerate(sides)]
        terms = [
            x
            for j, v in enumerate(vectors)
            for x in problem_term(v, J, residuals[0][j] + residuals[1][j], f"problem{j}")
        ]
        terms += [x for t in (0, 1) for x in seed_term(sides[t], f"seed{t}")]
        count, kind = sum(len(p) for p in common.values()), "unpaired seeds, paired problems"
    else:  # each row on its own seeds and problems; independent, so the variances add
        sides = [
            [_matrix(row, b, seeds, _problems([row], b, seeds)) for b in benchmarks]
            for row, seeds in zip((treatment, control), own)
        ]
        estimate = float(np.mean([t.mean() for t in sides[0]]) - np.mean([c.mean() for c in sides[1]]))
        residuals = [[_residual(m, J, f"resid{t}.{j}") for j, m in enumerate(side)] for t, side in enumerate(sides)]
        terms = [
            x
            for t, side in enumerate(sides)
            for j, m in enumerate(side)
            for x in problem_term(m.mean(axis=0), J, residuals[t][j], f"problem{t}.{j}")
        ]
        terms += [x for t in (0, 1) for x in seed_term(sides[t], f"seed{t}")]
        count, kind = min(sum(m.shape[1] for m in side) for side in sides), "unpaired"
    return _difference(estimate, terms, min(map(len, own)), count, kind, level)


def _difference(estimate, terms, seeds, problems, kind, level) -> Difference:
    low, high, p_value, se, nu = interval(estimate, terms, level)
    over = "problems only (1 seed: seed-to-seed variation not measured)" if seeds == 1 else "seeds x problems"
    test = "t mixture over the mean squares' df"
    if seeds >= 3 and kind == "paired":  # crossed.calibrated: the Welch-Aspin test
        test = "Welch-Aspin critical value at the estimated seed share"
    method = f"{kind}: crossed random-effects interval over {over} ({test}), {100 * level:g}%"
    paired = kind == "paired"
    return Difference(100 * estimate, 100 * low, 100 * high, seeds, problems, paired, method, p_value, 100 * se, nu)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values in the given order: the i-th smallest is multiplied by (m - i + 1), then
    made non-decreasing along the sorted order and capped at 1 (reject where adjusted p < alpha)."""
    m = len(p_values)
    adjusted, running = [0.0] * m, 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def average(row: RowScores, benchmarks: Sequence[str]) -> float:
    """A row's Avg in points: the mean over benchmarks of avg@k (mean over its seeds, then problems)."""
    benchmarks = [benchmarks] if isinstance(benchmarks, str) else benchmarks
    seeds = sorted(_seeds(row, benchmarks))
    if not seeds:
        raise ValueError("a row has no seed evaluated on every benchmark asked for")
    return 100 * float(np.mean([np.mean([np.mean(list(row[b][s].values())) for s in seeds]) for b in benchmarks]))


@dataclass(frozen=True)
class Grouped:
    label: str
    mean: float  # points
    group: int  # 1 = the leader's
    versus_leader: Difference | None  # None for the leader


def significance_groups(rows: dict[str, RowScores], benchmarks: Sequence[str], **kw) -> list[Grouped]:
    """Rows ranked by mean (ties by label). Every pair of rows is compared and the p-values are Holm-adjusted
    over ALL pairs (the leader is picked by the data, so its comparisons are the largest differences: a
    correction over the leader's comparisons alone lets six equal rows split in about 8-10% of pages).
    The leader opens group 1 and every row whose adjusted p-value to it is at least alpha = 1 - `level`
    (0.05 by default) joins; the best row left opens group 2 on the same rule, and so on. Holm holds
    under any dependence, so when all rows are equal some row lands outside group 1 in at most alpha of
    the pages. A row's `versus_leader` is its difference to the overall leader (row 1), unadjusted."""
    benchmarks = [benchmarks] if isinstance(benchmarks, str) else benchmarks
    alpha = 1 - kw.get("level", 0.95)
    means = {label: average(row, benchmarks) for label, row in rows.items()}
    order = sorted(rows, key=lambda label: (-means[label], label))
    if not order:
        return []
    pairs = {
        (a, b): difference(rows[b], rows[a], benchmarks, **kw) for i, a in enumerate(order) for b in order[i + 1 :]
    }
    adjusted = dict(zip(pairs, holm([d.p_value for d in pairs.values()])))
    groups, left, group = {}, list(order), 0
    while left:
        group += 1
        head, left = left[0], left[1:]
        groups[head] = group
        joined = [x for x in left if adjusted[head, x] >= alpha]
        for label in joined:
            groups[label] = group
        left = [x for x in left if x not in joined]
    leader = order[0]
    return [Grouped(label, means[label], groups[label], pairs.get((leader, label))) for label in order]


def components_from(rows: dict[str, RowScores], benchmark: str, samples: int) -> Components:
    """Method-of-moments estimates from measured rows (each with its own seeds). Per cell y(1-y)/(k-1) is
    unbiased for p(1-p)/k; a row's two-way residual mean square minus it is the interaction; the
    between-seed variance of its avg@k minus residual/n the seed term (pooled over rows, weights S - 1;
    0 when no row has two seeds, as the 1-seed interval has none: replace() one in to plan); problem_sd
    pools var_i(d_i) - residual_a/S_a - residual_b/S_b over pairs of rows (d_i: seed-averaged difference
    on shared problems; NaN with one row): pass the rows you mean to compare. k = 1: the residual all
    counts as sampling (with one seed too: p(1-p) at the mean accuracy, an upper bound)."""
    k, stats, seed_parts, problem_parts, squares, pairs = samples, {}, [], [], [], []
    for label, row in rows.items():
        seeds = sorted(row.get(benchmark, {}))
        problems = _problems([row], benchmark, seeds)
        if not seeds or not problems:
            continue
        y = _matrix(row, benchmark, seeds, problems)
        S, n = y.shape
        sampling = float((y * (1 - y)).mean() / (k - 1)) if k > 1 else math.nan  # per cell: p(1-p)/k
        residual = sampling
        if S >= 2 and n >= 2:
            r = y - y.mean(axis=0) - y.mean(axis=1, keepdims=True) + y.mean()
            residual = float((r**2).sum() / ((S - 1) * (n - 1)))
            seed_parts.append((y.mean(axis=1).var(ddof=1) - residual / n, S - 1))
        if k == 1:
            sampling = residual if S >= 2 else float(y.mean() * (1 - y.mean()))
            residual = sampling
        if S >= 2 and n >= 2:  # the mean squares behind the estimates (the plan draws from them: pilot.py)
            squares.append((S, n, float(y.mean(axis=1).var(ddof=1)), residual, sampling))
        stats[label] = (seeds, problems, y, residual, sampling)
    if not stats:
        raise ValueError(f"no scores for benchmark {benchmark!r}")
    labels = sorted(stats)
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            (_, pa, ya, ra, _), (_, pb, yb, rb, _) = stats[a], stats[b]
            shared = sorted(set(pa) & set(pb))
            if len(shared) < 2:
                continue
            d = ya[:, [pa.index(p) for p in shared]].mean(axis=0) - yb[:, [pb.index(p) for p in shared]].mean(axis=0)
            problem_parts.append((d.var(ddof=1) - ra / ya.shape[0] - rb / yb.shape[0], len(shared) - 1))
            pairs.append((float(d.var(ddof=1)), len(shared), 1 / ya.shape[0] + 1 / yb.shape[0]))

    pooled = lambda parts: math.sqrt(max(0.0, sum(v * w for v, w in parts) / sum(w for _, w in parts)))  # noqa: E731
    sampling = float(np.mean([s for *_, s in stats.values()]))
    interaction = max(0.0, float(np.mean([r - s for *_, r, s in stats.values()])))
    return Components(
        seed_sd=pooled(seed_parts) if seed_parts else 0.0,
        problem_sd=pooled(problem_parts) if problem_parts else math.nan,
        sample_var=sampling * k,
        problems=max(len(p) for _, p, *_ in stats.values()),
        samples=k,
        seeds=max(len(s) for s, *_ in stats.values()),
        interaction_sd=math.sqrt(interaction),
        mean=float(np.mean([y.mean() for _, _, y, *_ in stats.values()])),
        difference=2 * float(np.std([y.mean() for _, _, y, *_ in stats.values()])),  # two rows: their gap
        pilot=pilot_from(squares, pairs) if squares and pairs else None,
    )
