"""Table 1's figures: the paper's figures drawn from the rows that ran, as PNGs in figures/, linked from
the Markdown and embedded in the page (harness.reports.render.training_figures)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.reports.render.html import figures_html
from harness.reports.render.training_figures import paper_figures
from harness.reports.table1.sections import BODY, TAIL, ReportInputs, Section, register


@dataclass(frozen=True)
class Figures:
    paths: list[Path]
    notes: list[str]  # why a figure is left out


def build(inputs: ReportInputs) -> Figures:
    notes: list[str] = []
    paths = paper_figures(inputs.histories, inputs.root / "figures", inputs.heldout, notes)
    return Figures(paths, notes)


def markdown(found: Figures) -> dict[str, list[str]]:
    return {BODY: ["## Figures", "", *(f"![{p.stem}](figures/{p.name})" for p in found.paths), *found.notes]}


register(
    Section(
        "figures",
        60,
        build,
        markdown=markdown,
        html=lambda found: {TAIL: figures_html(found.paths)},
        files=lambda found: found.paths,
    )
)
