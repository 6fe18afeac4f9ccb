"""The report sub-commands of `harness` (Table 1, leaderboard, plan, grader and recipe audits): each a
plain function of the parsed arguments, registered in harness.cli.COMMANDS."""

from __future__ import annotations

import argparse
import sys

from harness.common.errors import ConfigError, UserError
from harness.common.uris import DEFAULT_TRACKING_URI


def default_table_profile() -> str:
    """`tiny` on a machine without a GPU, `paper` with one."""
    import torch

    return "paper" if torch.cuda.is_available() else "tiny"


def table1_command(args: argparse.Namespace, extra: list[str]) -> int:
    """Reproduce the paper's Table 1 (and, with --rows, Table 2 and the ablations) with the claims and figures."""
    from harness.reports.table1.reproduce import reproduce
    from harness.reports.table1.rows import select_rows

    if extra:
        raise ConfigError(f"unexpected argument '{extra[0]}'; see harness table1 --help")
    for name in ("seeds", "steps", "jobs", "limit"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ConfigError(f"--{name}={value} is out of range; allowed: >= 1")
    try:
        rows = select_rows(args.rows)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    from harness.common.uris import redact

    profile = args.profile or default_table_profile()
    try:
        report = reproduce(
            profile,
            rows,
            args.seeds,
            args.steps,
            args.jobs,
            args.output_dir or f"runs/table1-{profile}",
            args.tracking_uri or DEFAULT_TRACKING_URI,
            limit=args.limit,
            baseline=args.baseline,
        )
    except UserError as err:
        err.args = (redact(str(err)),)  # a password in --tracking-uri is never printed
        raise
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: every job was stopped (harness.reports.table1.jobs)
        print("harness table1: interrupted; run the same command again to continue", file=sys.stderr)
        return 130
    if report["missing"]:  # never a silent exit 0 with rows left out
        print(f"harness table1: {len(report['missing'])} row/seed(s) missing from the report:", file=sys.stderr)
        for line in report["missing"]:
            print(f"  {redact(line)}", file=sys.stderr)
        return 1
    return 0


def leaderboard_command(args: argparse.Namespace, extra: list[str]) -> int:
    """Rank every tracked training run by algorithm and hyper-parameters (Markdown, CSV, HTML)."""
    import datetime as dt

    from harness.profiles import get_profile
    from harness.reports.leaderboard import Filters, leaderboard

    if extra:
        raise ConfigError(f"unexpected argument '{extra[0]}'; see harness leaderboard --help")
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
    filters = Filters(tuple(args.experiment or ()), args.profile, tuple(tags), since)
    leaderboard(uri, filters, args.output_dir or "runs/leaderboard")
    return 0


def plan_command(args: argparse.Namespace, extra: list[str]) -> int:
    """Seeds x samples per problem needed to detect a difference of D points, per benchmark (power 0.8)."""
    from harness.reports.stats.seed_planner import plan

    if extra:
        raise ConfigError(f"unexpected argument '{extra[0]}'; see harness plan --help")
    plan(args.profile, args.difference, args.from_dir, args.tracking_uri)
    return 0


def grader_audit_command(args: argparse.Namespace, extra: list[str]) -> int:
    """Grade the graded set and the reward-hack probes in both grading modes against a careful reading."""
    from harness.reports.grader_audit_report import grader_audit

    if extra:
        raise ConfigError(f"unexpected argument '{extra[0]}'; see harness grader-audit --help")
    grader_audit(args.tracking_uri or DEFAULT_TRACKING_URI, args.json, args.show_disagreements)
    return 0


def recipe_audit_command(args: argparse.Namespace, extra: list[str]) -> int:
    """Every knob of CE-GPPO's Table 1 run: the paper's text, the official script and a profile of ours."""
    from harness.profiles import get_profile
    from harness.reports.recipe_audit import audit_markdown

    if extra:
        raise ConfigError(f"unexpected argument '{extra[0]}'; see harness recipe-audit --help")
    get_profile(args.profile, "--profile")
    print(audit_markdown(args.profile))
    return 0
