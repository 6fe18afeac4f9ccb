"""Table 1's grader audit line: how far the math grader agrees with a careful reading, above the table
(benchmarks.grading.grader_audit; cached per grader version, so milliseconds after the first time)."""

from __future__ import annotations

from benchmarks.grading.grader_audit import audit_line
from harness.reports.render.html import audit_line_html
from harness.reports.table1.sections import HEAD, ReportInputs, Section, register


def build(inputs: ReportInputs) -> str:
    return audit_line()


register(
    Section(
        "grader_audit",
        45,  # printed after the sections above, before the claims
        build,
        markdown=lambda line: {HEAD: [line, ""]},
        html=lambda line: {HEAD: [audit_line_html(line)]},
        terminal=lambda line: [line],
    )
)
