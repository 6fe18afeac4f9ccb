"""`harness leaderboard`: every tracked training run ranked by algorithm and hyper-parameters
(harness.reports.leaderboard)."""

from __future__ import annotations

import argparse

from harness.common.errors import ConfigError
from harness.common.uris import DEFAULT_TRACKING_URI
from harness.profiles import get_profile, profile_names
from harness.reports.commands import report_command


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tracking-uri", help=f"MLflow store (default {DEFAULT_TRACKING_URI})")
    parser.add_argument("--experiment", action="append", help="only this experiment (repeatable)")
    parser.add_argument("--profile", help=f"only runs of this training profile's model ({profile_names()})")
    parser.add_argument("--tag", action="append", help="only runs with tag KEY=VALUE (repeatable)")
    parser.add_argument("--since", help="only runs started on or after this date (YYYY-MM-DD; before 1970: all)")
    parser.add_argument("--output-dir", help="where leaderboard.md/.csv/.html go (default runs/leaderboard)")


@report_command("leaderboard", order=20, arguments=arguments)
def leaderboard_command(args: argparse.Namespace) -> int:
    """Rank every tracked training run by algorithm and hyper-parameters (Markdown, CSV, HTML)."""
    import datetime as dt

    tags = []
    for item in args.tag or []:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ConfigError(f"--tag {item!r} must look like KEY=VALUE")
        tags.append((key, value))
    if args.profile:
        get_profile(args.profile, "--profile")
    try:
        since = dt.date.fromisoformat(args.since) if args.since else None
    except ValueError:
        raise ConfigError(f"--since={args.since!r} is not a date; use YYYY-MM-DD") from None
    uri = args.tracking_uri or DEFAULT_TRACKING_URI  # only read: a missing store is refused, never created
    from harness.tracking import check_store

    check_store(uri, create=False)  # before MLflow and the report code are imported: a wrong path answers at once
    from harness.reports.leaderboard import Filters, leaderboard

    filters = Filters(tuple(args.experiment or ()), args.profile, tuple(tags), since)
    leaderboard(uri, filters, args.output_dir or "runs/leaderboard")
    return 0
