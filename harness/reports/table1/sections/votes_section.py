"""Table 1's maj@k / pass^k section: beside avg@k (the table), the majority vote of the k samples (maj@k,
cons@k) and the share of problems all k samples get right (pass^k), per row, mean over seeds and benchmarks.

Read from each evaluation's results.json (benchmarks.eval_metrics computes both for the primary metric); the
section is in the report only when some evaluation has them (k > 1). Per benchmark in the CSV.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from harness.reports.table1 import sections
from harness.reports.table1.sections import ReportInputs, table_section


@dataclass(frozen=True)
class Votes:
    metrics: list[str]  # e.g. ["maj@4", "pass^4"]
    benchmarks: list[str]
    rows: dict[str, dict[str, dict[str, float]]]  # row label -> benchmark (and "Avg") -> metric -> mean over seeds


def applies(inputs: ReportInputs) -> bool:
    return any(result.sample_metrics for by_seed in inputs.results.values() for result in by_seed.values())


def build(inputs: ReportInputs) -> Votes:
    metrics = sorted(
        {
            m
            for by_seed in inputs.results.values()
            for r in by_seed.values()
            for v in r.sample_metrics.values()
            for m in v
        }
    )
    rows = {}
    for label, by_seed in inputs.results.items():
        cells: dict[str, dict[str, float]] = {}
        for bench in inputs.benchmarks:
            for metric in metrics:
                values = [
                    r.sample_metrics[bench][metric]
                    for r in by_seed.values()
                    if metric in r.sample_metrics.get(bench, {})
                ]
                if values:
                    cells.setdefault(bench, {})[metric] = statistics.fmean(values)
        for metric in metrics:  # Avg: over the benchmarks that have the metric
            values = [cell[metric] for cell in cells.values() if metric in cell]
            if values:
                cells.setdefault("Avg", {})[metric] = statistics.fmean(values)
        if cells:
            rows[label] = cells
    return Votes(metrics, list(inputs.benchmarks), rows)


def _text(cells: dict, column: str, metric: str) -> str:
    value = cells.get(column, {}).get(metric)
    return "–" if value is None else f"{100 * value:.1f}"


def table(found: Votes) -> tuple[str, list[str], list[list[str]]]:
    header = ["row", *(f"{metric} Avg" for metric in found.metrics)]
    rows = [[label, *(_text(cells, "Avg", m) for m in found.metrics)] for label, cells in found.rows.items()]
    return "maj@k and pass^k (percent, mean over seeds)", header, rows


def markdown_table(found: Votes) -> str:
    return sections.markdown_table(*table(found))


def csv(found: Votes) -> dict[str, dict[str, str]]:
    return {
        f"{column}_{metric}": {label: _text(cells, column, metric) for label, cells in found.rows.items()}
        for column in [*found.benchmarks, "Avg"]
        for metric in found.metrics
    }


table_section("votes", 25, build, table, csv, applies)
