"""`harness recipe-audit`: every knob of CE-GPPO's Table 1 run, the paper's text against the official
script and a profile of ours (harness.reports.recipe_audit)."""

from __future__ import annotations

import argparse

from harness.profiles import get_profile, profile_names
from harness.reports.commands import report_command


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile", default="paper", help=f"the training profile to audit: {profile_names()} (default paper)"
    )


@report_command("recipe-audit", order=50, arguments=arguments)
def recipe_audit_command(args: argparse.Namespace) -> int:
    """Every knob of CE-GPPO's Table 1 run: the paper's text, the official script and a profile of ours."""
    from harness.reports.recipe_audit import audit_markdown

    get_profile(args.profile, "--profile")
    print(audit_markdown(args.profile))
    return 0
