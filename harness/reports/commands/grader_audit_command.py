"""`harness grader-audit`: the math grader against a careful reading (harness.reports.grader_audit_report)."""

from __future__ import annotations

import argparse

from harness.common.uris import DEFAULT_TRACKING_URI
from harness.reports.commands import report_command


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", help="also write the full result (with the id of every disagreement) to this file")
    parser.add_argument("--tracking-uri", help=f"MLflow store (default {DEFAULT_TRACKING_URI}; none: no tracking)")
    parser.add_argument(
        "--artifact-root",
        help="where a new grader-audit experiment keeps its files (a folder or URI); needed for a database store",
    )
    parser.add_argument(
        "--show-disagreements", action="store_true", help="list every case grader and reading differ on"
    )


@report_command("grader-audit", order=40, arguments=arguments)
def grader_audit_command(args: argparse.Namespace) -> int:
    """Grade the graded set and the reward-hack probes in both grading modes against a careful reading."""
    from harness.reports.grader_audit_report import grader_audit

    uri = args.tracking_uri or DEFAULT_TRACKING_URI
    grader_audit(uri, args.json, args.show_disagreements, artifact_root=args.artifact_root)
    return 0
