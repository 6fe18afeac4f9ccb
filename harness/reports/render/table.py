"""The table of a comparison: one row per algorithm, one column per benchmark plus Avg, stability columns.

Inputs per row and seed: the per-problem scores of each benchmark (the mean of the k samples of
each problem, from samples.jsonl) and the run's stability figures. A benchmark cell is

    avg@k  = mean over seeds of (mean over problems of the per-problem score)           (percent)
    ± se   = standard error over problems of the per-problem score pooled over seeds and samples
    sd     = spread over seeds: sample standard deviation of the per-seed avg@k; one seed has none
             ("sd n/a (1 seed)" on the page, an empty CSV field), never a measured-looking 0.0

Avg is the unweighted mean over the benchmarks (the paper's "Avg"), per seed, then as above with
its seed spread. Where the samples were graded in both of the math grader's modes, the lenient
verdict is the cell's headline and the strict one's avg@k stands beside it ("strict 44.0"; CSV:
<column>_strict_mean, after the other columns); Avg's strict value needs every benchmark's.
Stability columns are means over seeds of the figures of `harness.training.summary.stability_figures`; clip
shares are in percent of tokens.
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from dataclasses import dataclass, field, replace

from harness.reports.stats.seed_stats import spread

STABILITY = (
    ("end_entropy", "end H", "{:.4f}"),
    ("min_entropy", "min H", "{:.4f}"),
    ("max_ppo_kl", "max KL", "{:.2e}"),
    ("max_grad_norm", "max gn", "{:.2f}"),
    ("grad_norm_spikes", "spikes", "{:.1f}"),
    ("clip_frac_low", "clip lo %", "{:.2f}"),
    ("clip_frac_high", "clip hi %", "{:.2f}"),
)
PERCENT = {"clip_frac_low", "clip_frac_high"}


@dataclass(frozen=True)
class SeedResult:
    scores: dict[str, dict[str, float]]  # benchmark -> problem id -> mean score of its k samples
    figures: dict[str, float] = field(default_factory=dict)  # stability figures (none for the base row)
    strict: dict[str, dict[str, float]] = field(default_factory=dict)  # as scores, graded in strict mode
    # benchmark -> {"maj@k": value, "pass^k": value} of its primary metric (results.json), when evaluated with k > 1
    sample_metrics: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass(frozen=True)
class Cell:
    mean: float
    se: float | None  # over problems (pooled over seeds and samples); None for Avg
    sd: float  # over seeds
    seeds: int
    strict: float | None = None  # mean over seeds of the strict-mode avg@k; None: graded in one mode only

    def text(self) -> str:
        se = f" ± {100 * self.se:.1f}" if self.se is not None else ""
        strict = f", strict {100 * self.strict:.1f}" if self.strict is not None else ""
        return f"{100 * self.mean:.1f}{se} ({sd_text(self.sd, self.seeds)}){strict}"


def sd_text(sd: float, seeds: int) -> str:
    """The spread over seeds as shown: one seed measures none, so it says so instead of "sd 0.0"."""
    return f"sd {100 * sd:.1f}" if seeds >= 2 else "sd n/a (1 seed)"


def benchmark_cell(per_seed: list[dict[str, float]]) -> Cell:
    """per_seed[i] = {problem id: score} of seed i -> the cell (see the module docstring)."""
    seed_means = [statistics.fmean(scores.values()) for scores in per_seed]
    problems = sorted(set().union(*per_seed))
    pooled = [statistics.fmean(s[p] for s in per_seed if p in s) for p in problems]
    se = statistics.stdev(pooled) / math.sqrt(len(pooled)) if len(pooled) >= 2 else 0.0
    return Cell(statistics.fmean(seed_means), se, spread(seed_means), len(per_seed))


@dataclass(frozen=True)
class TableRow:
    label: str
    cells: dict[str, Cell]  # benchmark name -> cell; "Avg" too
    stability: dict[str, float]  # figure -> mean over seeds (empty for the base row)
    seeds: int


def build_table(results: dict[str, dict[int, SeedResult]], benchmarks: list[str]) -> list[TableRow]:
    """Rows in the order given; a row's seeds are those that finished."""
    rows = []
    for label, by_seed in results.items():
        seeds = sorted(by_seed)
        if not seeds:
            continue
        cells = {b: benchmark_cell([by_seed[s].scores[b] for s in seeds]) for b in benchmarks}
        averages = [
            statistics.fmean(statistics.fmean(by_seed[s].scores[b].values()) for b in benchmarks) for s in seeds
        ]
        cells["Avg"] = Cell(statistics.fmean(averages), None, spread(averages), len(seeds))
        strict = {b: _strict_mean([by_seed[s].strict.get(b) for s in seeds]) for b in benchmarks}
        for b, value in strict.items():
            cells[b] = replace(cells[b], strict=value)
        if benchmarks and all(value is not None for value in strict.values()):
            cells["Avg"] = replace(cells["Avg"], strict=statistics.fmean(strict.values()))
        figure_names = sorted(set().union(*(by_seed[s].figures for s in seeds)))
        stability = {
            name: statistics.fmean(by_seed[s].figures[name] for s in seeds if name in by_seed[s].figures)
            for name in figure_names
        }
        rows.append(TableRow(label, cells, stability, len(seeds)))
    return rows


def _strict_mean(per_seed: list[dict[str, float] | None]) -> float | None:
    """Mean over seeds of the strict avg@k; None unless every seed has strict scores."""
    if not per_seed or any(not scores for scores in per_seed):
        return None
    return statistics.fmean(statistics.fmean(scores.values()) for scores in per_seed)


def cell_text(row: TableRow, column: str) -> str:
    return row.cells[column].text() if column in row.cells else "–"


def stability_texts(row: TableRow) -> list[str]:
    texts = []
    for key, _, fmt in STABILITY:
        if key not in row.stability:
            texts.append("–")
            continue
        value = row.stability[key] * (100 if key in PERCENT else 1)
        texts.append(fmt.format(value))
    return texts


def to_markdown(
    rows: list[TableRow], benchmarks: list[str], paper: dict[str, tuple] | None = None, lead: dict | None = None
) -> str:
    """The table; with `paper` ({row label: reported values in column order}) a paper line under ours;
    `lead` adds columns {header: {row label: text}} after "seeds" (the leaderboard's group)."""
    columns, lead = [*benchmarks, "Avg"], lead or {}
    header = ["algorithm", "seeds", *lead, *columns, *(name for _, name, _ in STABILITY)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        texts = [row.label, str(row.seeds), *(lead[h].get(row.label, "–") for h in lead)]
        texts += [*(cell_text(row, c) for c in columns), *stability_texts(row)]
        lines.append("| " + " | ".join(texts) + " |")
        reported = (paper or {}).get(row.label)
        if reported:
            texts = [f"{row.label} (paper)", "", *("" for _ in lead), *(f"{v:g}" for v in reported)]
            lines.append("| " + " | ".join([*texts, *("" for _ in STABILITY)]) + " |")
    return "\n".join(lines)


def to_csv(rows: list[TableRow], benchmarks: list[str], extra: dict | None = None) -> str:
    """One line per row: every cell as mean / se / sd (fractions, not percent) and every figure; `extra`
    appends columns {header: {row label: text}} after all the others."""
    extra = extra or {}
    sink = io.StringIO()
    writer = csv.writer(sink)
    columns = [*benchmarks, "Avg"]
    writer.writerow(
        [
            "algorithm",
            "seeds",
            *(f"{c}_{part}" for c in columns for part in ("mean", "se", "sd")),
            *(key for key, _, _ in STABILITY),
            *(f"{c}_strict_mean" for c in columns),
            *extra,
        ]
    )
    for row in rows:
        values = []
        for c in columns:
            cell = row.cells.get(c)
            if cell is None:
                values += ["", "", ""]
                continue
            values += [
                f"{cell.mean:.6g}",
                "" if cell.se is None else f"{cell.se:.6g}",
                f"{cell.sd:.6g}" if cell.seeds >= 2 else "",
            ]
        figures = [f"{row.stability[key]:.6g}" if key in row.stability else "" for key, _, _ in STABILITY]
        stricts = [_number(row.cells[c].strict if c in row.cells else None) for c in columns]
        writer.writerow(
            [row.label, row.seeds, *values, *figures, *stricts, *(extra[h].get(row.label, "") for h in extra)]
        )
    return sink.getvalue()


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"
