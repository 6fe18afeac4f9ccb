"""Table 1's Recipe audit section on the paper profiles: every knob of CE-GPPO's run, the paper's text
against the official script and the profile (harness.reports.recipe_audit)."""

from __future__ import annotations

from harness.reports.recipe_audit import audit_html, audit_markdown
from harness.reports.table1.sections import BODY, ReportInputs, Section, register

RECIPE_PROFILES = ("paper", "paper-text")  # the profiles that follow the paper's recipe


def build(inputs: ReportInputs) -> str:
    return inputs.profile.name


register(
    Section(
        "recipe_audit",
        40,
        build,
        markdown=lambda profile: {BODY: [audit_markdown(profile), ""]},
        html=lambda profile: {BODY: [audit_html(profile)]},
        applies=lambda inputs: inputs.profile.name in RECIPE_PROFILES,
    )
)
