"""`harness plan`: the seeds x samples per problem a comparison needs (harness.reports.stats.seed_planner)."""

from __future__ import annotations

import argparse

from harness.profiles import profile_names
from harness.reports.commands import report_command


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile", help=f"one of {profile_names()}: its Table 1 budget (default: the run's, else paper)"
    )
    parser.add_argument(
        "--difference",
        type=float,
        default=2.5,
        help="the difference to detect, in points (default 2.5: the paper's margin)",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--from", dest="from_dir", help="a Table 1 output folder: components measured on its scores.json"
    )
    source.add_argument("--tracking-uri", help="an MLflow store: components of its newest Table 1 report")


@report_command("plan", order=30, arguments=arguments)
def plan_command(args: argparse.Namespace) -> int:
    """Seeds x samples per problem needed to detect a difference of D points, per benchmark (power 0.8)."""
    from harness.reports.stats.seed_planner import plan

    plan(args.profile, args.difference, args.from_dir, args.tracking_uri)
    return 0
