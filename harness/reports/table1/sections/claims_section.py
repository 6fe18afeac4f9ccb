"""Table 1's claims section: the paper's accuracy claims (Holm-adjusted together) and its entropy and
stability claims, each with its verdict on this profile (the checks: harness.reports.table1.claims)."""

from __future__ import annotations

from dataclasses import dataclass

from harness.reports.render.html import claims_html
from harness.reports.table1.claims import accuracy_note, check_accuracy_claims, check_claims
from harness.reports.table1.sections import BODY, TAIL, ReportInputs, Section, register

TITLE = "The paper's claims on this profile"


@dataclass(frozen=True)
class Claims:
    verdicts: list  # the accuracy verdicts, then the entropy and stability ones
    note: str  # the sentence above them: the correction and the family it ran over


def build(inputs: ReportInputs) -> Claims:
    accuracy = check_accuracy_claims(inputs.scores, inputs.benchmarks)
    figures = {label: {s: r.figures for s, r in by_seed.items()} for label, by_seed in inputs.results.items()}
    return Claims([*accuracy, *check_claims(figures)], accuracy_note(accuracy))


def markdown(found: Claims) -> dict[str, list[str]]:
    return {BODY: [f"## {TITLE}", "", found.note, "", *(v.line() for v in found.verdicts), ""]}


def terminal(found: Claims) -> list[str]:
    return ["\nclaims:\n" + found.note + "\n" + "\n".join(v.line().replace("**", "") for v in found.verdicts)]


register(
    Section(
        "claims",
        50,
        build,
        markdown=markdown,
        html=lambda found: {TAIL: claims_html(found.verdicts, found.note)},
        terminal=terminal,
    )
)
