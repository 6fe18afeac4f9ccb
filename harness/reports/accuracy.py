"""Accuracy differences you can cite: paired intervals and p-values, Holm, significance groups, seed budgets.

Data: `scores[benchmark][seed][problem]` = the mean of a problem's k graded samples (a fraction). The
design is CROSSED: every training seed is evaluated on the same problems, and two rows are paired when
they share seeds and problems. A row's avg@k on a benchmark is the mean over seeds and problems; Avg
is the unweighted mean over benchmarks. Differences are treatment - control, in percentage points.

The interval (`difference`). Per benchmark, D[s, i] = treatment - control on seed s, problem i. Both
seeds and problems are treated as samples (of training runs, of problems like these), so

    D[s, i] = Delta + u[s] + v[i] + r[s, i]       (seed shift, problem effect, seed x problem + sampling)
    Var(mean D) = var(u)/S + var(v)/n + var(r)/(S n)

and the two-way ANOVA mean squares estimate it without bias: (MS_seed + MS_problem - MS_resid)/(S n).
A bootstrap draws (a) problems with replacement ONCE per replicate and benchmark, shared by every seed
and both rows, from the seed-averaged differences (centred, scaled by sqrt(n/(n-1))): this carries
var(v)/n + var(r)/(S n), shape included (skew of 30-problem benchmarks); and (b) seeds with replacement
from the per-seed Avg deviations, rescaled so their variance is the seed term alone (the residual part
MS_resid/n that the seed means also carry is taken out, as in the rescaled-residual bootstrap of
multilevel models): var(u)/S. Simulation showed why not the simpler schemes: resampling seeds and
problems together (pigeonhole) counts the residual about 2.5 times and over-covers; resampling problems
within each seed (nested) averages the shared problem effect away and under-covers. With few seeds a
bootstrap alone is too narrow (the seed term has S - 1 degrees of freedom), so the percentile interval
is expanded about the estimate by t_nu / z (Hesterberg's expanded percentile), nu being the
Satterthwaite degrees of freedom of the ANOVA variance; with many problems and a small seed term nu is
large and nothing changes. The p-value inverts the same interval: the smallest alpha whose interval
excludes 0 (floored at 1 / (resamples + 1)). One shared seed: problems only; the interval then holds
for that training seed and says nothing of seed-to-seed variation. Unpaired rows (fewer than one
shared seed, or fewer than two shared problems on a benchmark): each row is bootstrapped on its own as
above (its scores instead of D) and the replicates subtracted; that ignores the problems' shared
difficulty and is conservative.

Power (`minimum_detectable_difference`), per benchmark, from Components (fractions):

    SE^2 = 2 seed_sd^2 / S + problem_sd^2 / n + 2 (interaction_sd^2 + sample_var / k) / (S n)

seed_sd: a row's training-seed shift of its avg@k; problem_sd: sd over problems of the paired
difference of expected accuracy; interaction_sd: a row's seed x problem deviation beyond sampling;
sample_var: mean p(1-p) over problems (one sample's Bernoulli variance; k samples divide it by k).
Rows' seed and interaction terms are independent, hence the 2s. MDE = (t_{nu,1-alpha/2} + t_{nu,power}) SE
with nu the Satterthwaite degrees of freedom the design would give (n - 1 for one seed, where the seed
term is assumed, not measured); `power_of` uses the same t approximation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

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


def _crossed(blocks: list[np.ndarray], resamples: int, rng: np.random.Generator):
    """blocks[j]: seeds x problems of benchmark j (same seeds in every block). Returns the estimate (mean
    over benchmarks of the block means), the bootstrap deviations and the Satterthwaite terms
    [(variance part, degrees of freedom)] of the unbiased ANOVA variance (module docstring)."""
    J, S = len(blocks), blocks[0].shape[0]
    estimate = float(np.mean([b.mean() for b in blocks]))
    deviations, terms, residual = np.zeros(resamples), [], []
    for block in blocks:
        n = block.shape[1]
        if n < 2:
            continue
        per_problem = block.mean(axis=0)  # seed-averaged: its spread is MS_problem / S
        centred = (per_problem - per_problem.mean()) * math.sqrt(n / (n - 1))
        deviations += centred[rng.integers(0, n, (resamples, n))].mean(axis=1) / J
        terms.append((per_problem.var(ddof=1) / n / J**2, n - 1))
        if S >= 2:  # two-way residual mean square: seed x problem interaction plus sampling noise
            r = block - block.mean(axis=0) - block.mean(axis=1, keepdims=True) + block.mean()
            residual.append(((r**2).sum() / ((S - 1) * (n - 1)) / n / J**2 / S, (S - 1) * (n - 1)))
    if S >= 2:
        per_seed = np.mean([b.mean(axis=1) for b in blocks], axis=0)  # a seed's Avg over the benchmarks
        ms_seed = per_seed.var(ddof=1) / S  # carries var(u)/S plus the residual part sum(residual)
        seed_part = ms_seed - sum(v for v, _ in residual)
        if seed_part > 0:
            scale = math.sqrt(seed_part / ms_seed * S / (S - 1))
            centred = (per_seed - per_seed.mean()) * scale
            deviations += centred[rng.integers(0, S, (resamples, S))].mean(axis=1)
            terms += [(ms_seed, S - 1), *((-v, df) for v, df in residual)]
    return estimate, deviations, terms


def _satterthwaite(terms) -> float:
    variance = sum(v for v, _ in terms)
    spread = sum(v * v / df for v, df in terms)
    return variance**2 / spread if spread > 0 else math.inf


def _interval(estimate, deviations, nu, level, resamples):
    """The t-expanded percentile interval at `level` and the p-value that inverts it."""

    def bounds(alpha):
        alpha = np.asarray(alpha, dtype=float)
        expand = student_t.ppf(1 - alpha / 2, nu) / norm.ppf(1 - alpha / 2) if math.isfinite(nu) else 1.0
        low = estimate + expand * np.quantile(deviations, alpha / 2)
        high = estimate + expand * np.quantile(deviations, 1 - alpha / 2)
        return low, high

    low, high = bounds(1 - level)
    floor = 1 / (resamples + 1)
    alphas = np.concatenate([np.geomspace(floor, 0.05, 300), np.linspace(0.05, 0.999, 400)[1:]])
    lows, highs = bounds(alphas)
    excluded = np.flatnonzero((lows > 0) | (highs < 0))
    p_value = float(alphas[excluded[0]]) if excluded.size else 1.0
    return float(low), float(high), p_value


def difference(
    treatment: RowScores,
    control: RowScores,
    benchmarks: Sequence[str],
    *,
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> Difference:
    """treatment - control on the mean over `benchmarks` of avg@k (points); see the module docstring."""
    if isinstance(benchmarks, str):
        benchmarks = [benchmarks]
    if not benchmarks:
        raise ValueError("difference over no benchmarks")
    rng = np.random.default_rng(seed)
    shared = sorted(_seeds(treatment, benchmarks) & _seeds(control, benchmarks))
    problems = {b: _problems([treatment, control], b, shared) for b in benchmarks}
    if shared and all(len(p) >= 2 for p in problems.values()):
        blocks = [
            _matrix(treatment, b, shared, problems[b]) - _matrix(control, b, shared, problems[b]) for b in benchmarks
        ]
        estimate, deviations, terms = _crossed(blocks, resamples, rng)
        seeds, paired, count = len(shared), True, sum(len(p) for p in problems.values())
    else:
        parts = []
        for row in (treatment, control):
            own = sorted(_seeds(row, benchmarks))
            if not own:
                raise ValueError("a row has no seed evaluated on every benchmark asked for")
            blocks = [_matrix(row, b, own, _problems([row], b, own)) for b in benchmarks]
            parts.append((_crossed(blocks, resamples, rng), len(own), sum(b.shape[1] for b in blocks)))
        (est_t, dev_t, terms_t), seeds_t, count_t = parts[0]
        (est_c, dev_c, terms_c), seeds_c, count_c = parts[1]
        estimate, deviations, terms = est_t - est_c, dev_t - dev_c, terms_t + terms_c
        seeds, paired, count = min(seeds_t, seeds_c), False, min(count_t, count_c)
    low, high, p_value = _interval(estimate, deviations, _satterthwaite(terms), level, resamples)
    over = "problems only (1 seed: seed-to-seed variation not measured)" if seeds == 1 else "problems x seeds"
    method = f"crossed bootstrap over {over}, {resamples} resamples, t-expanded percentile {100 * level:g}%"
    return Difference(100 * estimate, 100 * low, 100 * high, seeds, count, paired, method, p_value)


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
    seeds = sorted(_seeds(row, benchmarks))
    return 100 * float(np.mean([np.mean([np.mean(list(row[b][s].values())) for s in seeds]) for b in benchmarks]))


@dataclass(frozen=True)
class Grouped:
    label: str
    mean: float  # points
    group: int  # 1 = the leader's
    versus_leader: Difference | None  # None for the leader


def significance_groups(rows: dict[str, RowScores], benchmarks: Sequence[str], **kw) -> list[Grouped]:
    """Rows ranked by mean (ties by label). The leader opens group 1 and every row whose interval of the
    difference to it covers 0 joins; the best row left opens group 2 and the rows left whose interval to
    THAT row covers 0 join it; and so on. A row's `versus_leader` is always its difference to the overall
    leader (row 1). No multiplicity correction: the groups are a reading aid at `level`, not a test."""
    means = {label: average(row, benchmarks) for label, row in rows.items()}
    order = sorted(rows, key=lambda label: (-means[label], label))
    if not order:
        return []
    leader, groups, left, group = order[0], {}, list(order), 0
    versus = {label: difference(rows[label], rows[leader], benchmarks, **kw) for label in order[1:]}
    while left:
        group += 1
        head, left = left[0], left[1:]
        groups[head] = group
        joined = [
            x
            for x in left
            if (versus[x] if head == leader else difference(rows[x], rows[head], benchmarks, **kw)).covers_zero()
        ]
        for label in joined:
            groups[label] = group
        left = [x for x in left if x not in joined]
    return [Grouped(label, means[label], groups[label], versus.get(label)) for label in order]


@dataclass(frozen=True)
class Components:  # per benchmark, in score units (fractions); see the module docstring's formula
    seed_sd: float  # sd of a row's per-seed avg@k about its mean (training seeds), net of evaluation noise
    problem_sd: float  # sd over problems of the paired per-problem difference (expected accuracies)
    sample_var: float  # mean within-problem Bernoulli variance p(1-p)
    problems: int
    samples: int
    seeds: int
    interaction_sd: float = 0.0  # a row's seed x problem deviation beyond sampling (added to the contract)


def components_from(rows: dict[str, RowScores], benchmark: str, samples: int) -> Components:
    """Method-of-moments estimates from measured rows (each with its own seeds). Per cell, y(1-y) k/(k-1)
    is unbiased for p(1-p); a row's two-way residual mean square minus that sampling part is the
    interaction; the between-seed variance of its avg@k minus residual/n is the seed term (pooled over
    rows, weights S - 1); problem_sd pools var_i(d_i) - residual_a/S_a - residual_b/S_b over pairs of rows
    (d_i: seed-averaged difference on shared problems): pass the rows you mean to compare (it needs two,
    else NaN). With k = 1 the within-problem variance cannot be told from the interaction: all of the
    residual counts as sampling (one seed as well: p(1-p) at the mean accuracy, an upper bound)."""
    k, stats, seed_parts, problem_parts = samples, {}, [], []
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

    def pooled(parts):
        return math.sqrt(max(0.0, sum(v * w for v, w in parts) / sum(w for _, w in parts))) if parts else math.nan

    sampling = float(np.mean([s for *_, s in stats.values()]))
    interaction = max(0.0, float(np.mean([r - s for *_, r, s in stats.values()])))
    return Components(
        seed_sd=pooled(seed_parts) if seed_parts else 0.0,
        problem_sd=pooled(problem_parts),
        sample_var=sampling * k,
        problems=max(len(p) for _, p, *_ in stats.values()),
        samples=k,
        seeds=max(len(s) for s, *_ in stats.values()),
        interaction_sd=math.sqrt(interaction),
    )


def _design(c: Components, seeds: int, samples: int, problems: int | None) -> tuple[float, float]:
    """(SE of the paired difference, its Satterthwaite degrees of freedom) for a design; formula above."""
    n, S = problems or c.problems, seeds
    residual = 2 * (c.interaction_sd**2 + c.sample_var / samples)  # per cell, of the difference
    ms_seed, ms_problem = n * 2 * c.seed_sd**2 + residual, S * c.problem_sd**2 + residual
    variance = 2 * c.seed_sd**2 / S + c.problem_sd**2 / n + residual / (S * n)
    if S < 2:
        return math.sqrt(variance), float(n - 1)
    parts = ((ms_seed, S - 1), (ms_problem, n - 1), (residual, (S - 1) * (n - 1)))
    return math.sqrt(variance), (sum(m for m, _ in parts[:2]) - residual) ** 2 / sum(m * m / df for m, df in parts)


def minimum_detectable_difference(
    components: Components, seeds: int, samples: int, *, alpha=0.05, power=0.8, problems: int | None = None
) -> float:
    """The smallest true difference (points) the interval test detects with `power`:
    (t_{nu,1-alpha/2} + t_{nu,power}) SE."""
    se, nu = _design(components, seeds, samples, problems)
    return 100 * (student_t.ppf(1 - alpha / 2, nu) + student_t.ppf(power, nu)) * se


def power_of(components, difference_points, seeds, samples, *, alpha=0.05, problems=None) -> float:
    """Probability that the two-sided interval test at `alpha` excludes 0 when the true difference is
    `difference_points` (shifted central t: the approximation the MDE inverts)."""
    se, nu = _design(components, seeds, samples, problems)
    shift, critical = difference_points / 100 / se, student_t.ppf(1 - alpha / 2, nu)
    return float(student_t.cdf(shift - critical, nu) + student_t.cdf(-shift - critical, nu))


def budget(
    components,
    difference_points,
    *,
    power=0.8,
    alpha=0.05,
    seeds_options=(1, 2, 3, 5, 8, 10, 16, 32),
    samples_options=(1, 2, 4, 8, 16, 32, 64),
) -> list[tuple[int, int, float]]:
    """(seeds, samples, power) for the cheapest designs reaching `power`: for each seed count the fewest
    samples that do, keeping only those no other option beats on both (fewer seeds need more samples;
    a seed costs a training run, a sample only evaluation, so the trade-off is left to the reader)."""
    options, best = [], math.inf
    for seeds in sorted(seeds_options):
        for samples in sorted(samples_options):
            reached = power_of(components, difference_points, seeds, samples, alpha=alpha)
            if reached >= power and samples < best:
                options.append((seeds, samples, reached))
                best = samples
                break
    return options


def _assumed(level: float, problems: int) -> Components:
    """Stated defaults at a mean accuracy `level` (see PAPER_ASSUMPTIONS)."""
    m, phi = level, 1.0  # per-problem accuracies ~ Beta(m phi, (1-m) phi): half the variance between problems
    a, b = m * phi, (1 - m) * phi
    bernoulli = m * (1 - m) * phi / (phi + 1)  # E[p(1-p)]
    slope = math.sqrt(a * (a + 1) * b * (b + 1) / (phi * (phi + 1) * (phi + 2) * (phi + 3)))  # sqrt E[(p(1-p))^2]
    # dp = p(1-p) dlogit: logit sd 0.5 between two trained rows per problem, 0.3 between seeds per problem
    return Components(0.01, 0.5 * slope, bernoulli, problems, PAPER_SAMPLES, PAPER_SEEDS, 0.3 * slope)


PAPER_SAMPLES, PAPER_SEEDS = 16, 1  # harness.reports.plan TABLE_PROFILES["paper"]: k=16, seeds=1
PAPER_PROBLEMS = {"aime24": 30, "aime25": 30, "hmmt25": 30, "math500": 500, "amc23": 40}
# Mean accuracy of the paper's 1.5B GRPO, DAPO and CE-GPPO(0.5,1) rows (harness.reports.paper, Table 1).
PAPER_LEVELS = {"aime24": 0.385, "aime25": 0.301, "hmmt25": 0.191, "math500": 0.898, "amc23": 0.832}
PAPER_ASSUMPTIONS: dict[str, Components] = {b: _assumed(PAPER_LEVELS[b], n) for b, n in PAPER_PROBLEMS.items()}
