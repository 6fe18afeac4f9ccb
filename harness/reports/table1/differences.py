"""Table 1's accuracy differences: every row against a baseline row, and the smallest difference the
table's own budget can detect.

    comparisons = compare(results, benchmarks, "GRPO")     # row -> {benchmark or "Avg": Difference}
    differences_markdown(comparisons, benchmarks, "GRPO")  # the second table of table1.md
    detectable(trained, benchmarks, seeds, k)              # benchmark -> (MDE in points, Components)

A cell is treatment - baseline in percentage points with its 95% interval, "+2.5 [-1.0, +6.0]", from
`harness.reports.stats.accuracy.difference` (a crossed random-effects interval over the seeds and problems
both rows share: harness.reports.stats.crossed; the method is named once under the
table). Avg is the difference of the unweighted mean over
the benchmarks, the paper's Avg. A row that does not share seeds and problems with the baseline is
compared unpaired, and its line says so.

The detectable difference of a benchmark is `minimum_detectable_difference` (80% power, two-sided
5% level) at the table's seeds, samples per problem and problems, from the variance components its
trained rows show (`components_from`): the between-seed spread of avg@k, the per-problem spread of
the paired differences and the within-problem sampling variance. The base row is left out of them:
it is not trained, so its seeds differ only in evaluation sampling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.reports.render.html import plain_table
from harness.reports.render.table import SeedResult
from harness.reports.stats.accuracy import Components, Difference, RowScores, components_from, difference
from harness.reports.stats.accuracy import minimum_detectable_difference as mde

LEVEL = 0.95


def row_scores(by_seed: dict[int, SeedResult], benchmarks: list[str]) -> RowScores:
    """benchmark -> seed -> problem id -> score, from a row's SeedResults."""
    return {b: {seed: r.scores[b] for seed, r in sorted(by_seed.items()) if r.scores.get(b)} for b in benchmarks}


@dataclass(frozen=True)
class Comparison:
    label: str
    cells: dict[str, Difference]  # benchmark or "Avg" -> treatment - baseline


def compare(results: dict[str, dict[int, SeedResult]], benchmarks: list[str], baseline: str) -> list[Comparison]:
    """Every row but the baseline (in the given order) against the baseline; [] without the baseline."""
    if baseline not in results or not benchmarks:
        return []
    control = row_scores(results[baseline], benchmarks)
    comparisons = []
    for label, by_seed in results.items():
        if label == baseline:
            continue
        treatment = row_scores(by_seed, benchmarks)
        cells = {b: difference(treatment, control, [b], level=LEVEL) for b in benchmarks}
        # with one benchmark, Avg is that benchmark: the same resampling, the same interval
        cells["Avg"] = cells[benchmarks[0]] if len(benchmarks) == 1 else difference(treatment, control, benchmarks)
        comparisons.append(Comparison(label, cells))
    return comparisons


def _compared(c: Comparison) -> str:
    avg = c.cells["Avg"]
    return f"{'paired' if avg.paired else 'unpaired'}, {avg.seeds} seed{'s' * (avg.seeds != 1)}"


def _header(baseline: str) -> str:
    return f"Difference to {baseline}, points, {100 * LEVEL:g}% interval"


def method_note(comparisons: list[Comparison]) -> str:
    if not comparisons:
        return ""
    methods = sorted({d.method for c in comparisons for d in c.cells.values()})
    unpaired = [c.label for c in comparisons if not c.cells["Avg"].paired]
    text = "Intervals: " + "; ".join(methods) + " (harness.reports.stats.accuracy)"
    if unpaired:
        text += f"; unpaired (not the baseline's seeds or problems, compared row against row): {', '.join(unpaired)}"
    return text


def _rows(comparisons: list[Comparison], benchmarks: list[str]) -> list[list[str]]:
    return [[c.label, _compared(c), *(c.cells[b].text() for b in [*benchmarks, "Avg"])] for c in comparisons]


def nothing_to_compare(results: dict, baseline: str) -> str:
    """Why the differences table is empty."""
    if baseline not in results:
        return f"No differences: the baseline row {baseline} has no finished run."
    return f"No differences: no row but the baseline {baseline} has a finished run."


def differences_markdown(comparisons: list[Comparison], benchmarks: list[str], baseline: str, why: str = "") -> str:
    """The second table of table1.md, the method under it; `why` there is nothing to compare, if so."""
    if not comparisons:
        return f"### {_header(baseline)}\n\n{why or 'No differences.'}"
    header = ["algorithm", "compared", *benchmarks, "Avg"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(comparisons, benchmarks)]
    return f"### {_header(baseline)}\n\n" + "\n".join(lines) + "\n\n" + method_note(comparisons)


def differences_html(comparisons: list[Comparison], benchmarks: list[str], baseline: str, why: str = "") -> str:
    import html

    if not comparisons:
        return f"<h3>{html.escape(_header(baseline))}</h3><p class='note'>{html.escape(why or 'No differences.')}</p>"
    table = plain_table(["algorithm", "compared", *benchmarks, "Avg"], _rows(comparisons, benchmarks), signs=True)
    note = html.escape(method_note(comparisons))
    return f"<h3>{html.escape(_header(baseline))}</h3>\n{table}\n<p class='note'>{note}</p>"


def csv_columns(comparisons: list[Comparison], benchmarks: list[str], baseline: str) -> dict:
    """Extra table1.csv columns {header: {row label: text}}: per column the difference to the baseline, its
    interval (points) and two-sided p-value, and whether the comparison was paired; none without comparisons."""
    if not comparisons:
        return {}
    columns: dict[str, dict[str, str]] = {"diff_baseline": {}, "diff_paired": {}}
    for c in comparisons:
        columns["diff_baseline"][c.label] = baseline
        columns["diff_paired"][c.label] = str(c.cells["Avg"].paired).lower()
        for name in [*benchmarks, "Avg"]:
            d = c.cells[name]
            for part, value in (("pts", d.mean), ("low_pts", d.low), ("high_pts", d.high), ("p", d.p_value)):
                columns.setdefault(f"{name}_diff_{part}", {})[c.label] = f"{value:.6g}"
    return columns


def detectable(
    trained: dict[str, RowScores], benchmarks: list[str], seeds: int, samples: int
) -> dict[str, tuple[float, Components]]:
    """benchmark -> (the smallest difference in points the budget detects, the components it used)."""
    found = {}
    for b in benchmarks:
        rows = {label: row for label, row in trained.items() if row.get(b)}
        if not rows:
            continue
        components = components_from(rows, b, samples)
        found[b] = (mde(components, seeds, samples, problems=components.problems), components)
    return found


def detectable_line(found: dict[str, tuple[float, Components]], seeds: int, samples: int) -> str:
    """The sentence under the table; a benchmark whose components could not be measured says why."""
    if not found:
        return ""
    parts = []
    for b, (points, c) in found.items():
        if points > 100:  # beyond the scale: no difference of accuracies is detected with 80% power
            parts.append(f"{b} none up to 100 points ({c.problems} problems)")
        elif math.isfinite(points):
            parts.append(f"{b} {points:.1f} points ({c.problems} problems)")
        else:
            parts.append(f"{b} not measurable (needs two RL rows on shared problems)")
    return (
        f"Smallest difference this budget detects (80% power, 5% level; {seeds} seed{'s' * (seeds != 1)} x "
        f"{samples} sample{'s' * (samples != 1)} per problem, "
        "variance components measured on the RL rows, base left out; "
        "`harness plan` for other budgets): " + "; ".join(parts)
    )
