"""The sections of the Table 1 report, one module each here, registering itself with `register`.

    register(Section("kl", 35, build, markdown=..., html=..., csv=..., terminal=..., applies=...))

`harness.reports.table1.build` collects the runs, builds the table, then asks every section of this
folder, in `order`, for its findings (`build(inputs)`, once) and for its pieces of each output:

    markdown(findings) -> {region: lines}       table1.md; regions HEAD (above the table) and BODY (below)
    html(findings)     -> {region: blocks}      table1.html; HEAD (under the setup), BODY (after the table),
                                                NOTES (sentences under the body), TAIL (after the missing rows)
    csv(findings)      -> {header: {row: text}} extra table1.csv columns, after the table's own
    terminal(findings) -> [text]                what `harness table1` prints after the table
    files(findings)    -> [path]                files it wrote, logged with the report (figures)

A piece a section does not have is left out; `applies(inputs)` says whether the section is in the
report at all (default: always). The report returns each section's findings under its name.
Sections in the report now, by order: starting_policy (10; once runs name their starting policy),
differences (20; with the smallest detectable difference), votes (25; maj@k and pass^k, when evaluated
with k > 1), mechanisms (27; each masking / clipping mechanism's share, when a row has one), staleness
(30; staleness rows only), recipe_audit (40; the paper profiles), grader_audit (45; the audit line, above
the table), claims (50), figures (60). Adding one is one module here and its test.
May import what `harness.reports.table1` may.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from harness.profiles import Profile
from harness.reports.render.table import SeedResult, TableRow
from harness.reports.stats.accuracy import RowScores
from harness.reports.table1.rows import Row

HEAD, BODY, NOTES, TAIL = "head", "body", "notes", "tail"


@dataclass(frozen=True)
class ReportInputs:
    """What every section reads: the finished runs of the plan and the table built from them."""

    profile: Profile
    rows: list[Row]  # the plan's rows, in order
    seeds: list[int]
    baseline: str  # the row every other row is compared with
    results: dict[str, dict[int, SeedResult]]  # row label -> seed -> evaluation, finished rows in the rows' order
    histories: dict[str, dict[int, list[dict]]]  # row label -> seed -> training history (summary.json)
    heldout: dict[str, dict[int, dict]]  # row label -> seed -> held-out accuracy before / after RL
    benchmarks: list[str]
    table: list[TableRow]
    scores: dict[str, RowScores]  # row label -> benchmark -> seed -> problem id -> score
    root: Path  # the output folder
    starting: dict[str, dict[int, str]] = field(default_factory=dict)  # row label -> seed -> starting policy line


def always(inputs: ReportInputs) -> bool:
    return True


@dataclass(frozen=True)
class Section:
    name: str
    order: int  # place among the sections, in every output
    build: Callable[[ReportInputs], Any]  # the section's findings, computed once
    markdown: Callable[[Any], dict[str, list[str]]] | None = None
    html: Callable[[Any], dict[str, list[str]]] | None = None
    csv: Callable[[Any], dict[str, dict[str, str]]] | None = None
    terminal: Callable[[Any], list[str]] | None = None
    files: Callable[[Any], list[Path]] | None = None
    applies: Callable[[ReportInputs], bool] = always


SECTIONS: dict[str, Section] = {}


def register(section: Section) -> Section:
    if section.name in SECTIONS:
        raise ValueError(f"report section {section.name!r} is registered twice")
    SECTIONS[section.name] = section
    return section


def report_sections() -> list[Section]:
    """Every section of this folder, in order."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return sorted(SECTIONS.values(), key=lambda section: section.order)


def table_section(
    name: str,
    order: int,
    build: Callable[[ReportInputs], Any],
    table: Callable[[Any], tuple[str, list[str], list[list[str]]]],
    csv: Callable[[Any], dict[str, dict[str, str]]],
    applies: Callable[[ReportInputs], bool],
) -> Section:
    """Register a section that is one small table below Table 1: `table(findings)` gives (title, header, rows
    of cell texts), drawn the same way in table1.md, the page and the terminal."""
    return register(
        Section(
            name,
            order,
            build,
            markdown=lambda found: {BODY: [markdown_table(*table(found)), ""]},
            html=lambda found: {BODY: [html_table(*table(found))]},
            csv=csv,
            terminal=lambda found: ["\n" + markdown_table(*table(found)).replace("### ", "")],
            applies=applies,
        )
    )


def markdown_table(title: str, header: list[str], rows: list[list[str]]) -> str:
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join([*lines, *("| " + " | ".join(row) + " |" for row in rows)])


def html_table(title: str, header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(text)}</th>" for text in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(text)}</td>" for text in row) + "</tr>" for row in rows)
    return f"<h3>{escape(title)}</h3><table><tr>{head}</tr>{body}</table>"
