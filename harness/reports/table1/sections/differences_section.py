"""Table 1's Differences section: every row against the baseline row, with intervals, and the smallest
difference the table's budget detects (the computations: harness.reports.table1.differences)."""

from __future__ import annotations

from dataclasses import dataclass

from harness.reports.render.html import note_html
from harness.reports.table1.differences import (
    Comparison,
    compare,
    csv_columns,
    detectable,
    detectable_line,
    differences_html,
    differences_markdown,
    nothing_to_compare,
)
from harness.reports.table1.sections import BODY, NOTES, ReportInputs, Section, register


@dataclass(frozen=True)
class Differences:
    comparisons: list[Comparison]
    benchmarks: list[str]
    baseline: str
    why: str  # why there is nothing to compare, if so
    budget: str  # the sentence on the detectable difference; "" when no benchmark has scores

    def markdown_table(self) -> str:
        return differences_markdown(self.comparisons, self.benchmarks, self.baseline, self.why)


def build(inputs: ReportInputs) -> Differences:
    seeds, k = len(inputs.seeds), inputs.profile.k
    # the base row is not trained: its seeds differ only in evaluation sampling, so it measures no seed term
    trained = {r.label: inputs.scores[r.label] for r in inputs.rows if r.loss is not None and r.label in inputs.scores}
    budget = detectable_line(detectable(trained, inputs.benchmarks, seeds, k), seeds, k)
    comparisons = compare(inputs.results, inputs.benchmarks, inputs.baseline)
    why = nothing_to_compare(inputs.results, inputs.baseline)
    return Differences(comparisons, inputs.benchmarks, inputs.baseline, why, budget)


def markdown(found: Differences) -> dict[str, list[str]]:
    return {BODY: [found.markdown_table(), "", *([found.budget, ""] if found.budget else [])]}


def html(found: Differences) -> dict[str, list[str]]:
    table = differences_html(found.comparisons, found.benchmarks, found.baseline, found.why)
    return {BODY: [table], NOTES: [note_html(found.budget)] if found.budget else []}


def csv(found: Differences) -> dict[str, dict[str, str]]:
    return csv_columns(found.comparisons, found.benchmarks, found.baseline)


def terminal(found: Differences) -> list[str]:
    return ["\n" + found.markdown_table().replace("### ", ""), *([found.budget] if found.budget else [])]


register(Section("differences", 20, build, markdown=markdown, html=html, csv=csv, terminal=terminal))
