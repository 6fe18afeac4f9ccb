"""`harness table1`: train and evaluate the paper's rows on paired seeds, then the report
(harness.reports.table1.reproduce)."""

from __future__ import annotations

import argparse
import sys

from harness.common.errors import ConfigError, UserError
from harness.common.uris import DEFAULT_TRACKING_URI
from harness.profiles import profiles_help
from harness.reports.commands import report_command


def default_table_profile() -> str:
    """`countdown` on a machine without a GPU (the CPU testbed whose budget detects 3.7 points, 43-48 minutes on 2
    cores: docs/countdown-testbed.md, r21, r22), `paper` with one."""
    import torch

    return "paper" if torch.cuda.is_available() else "countdown"


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", help=f"{profiles_help()}; default: countdown without a GPU, paper with one")
    parser.add_argument(
        "--rows", default="table1", help="also: table2, entropy, betas, switch, all (those), staleness, or row labels"
    )
    parser.add_argument("--seeds", type=int, help="paired seeds per row (default: the profile's; countdown 8)")
    parser.add_argument("--steps", type=int, help="RL steps per run (default: the profile's; countdown 140)")
    parser.add_argument(
        "--jobs", type=int, help="runs at once (default: the core count; at most the number of jobs; one thread each)"
    )
    parser.add_argument("--limit", type=int, help="problems per benchmark (default: the profile's; countdown 3,470)")
    parser.add_argument("--output-dir", help="runs, report and figures (default runs/table1-<profile>)")
    parser.add_argument("--tracking-uri", help=f"MLflow store (default {DEFAULT_TRACKING_URI})")
    parser.add_argument("--baseline", default="GRPO", help="the row every other row's accuracy is compared with")


@report_command("table1", order=10, arguments=arguments)
def table1_command(args: argparse.Namespace) -> int:
    """Reproduce the paper's Table 1 (and, with --rows, Table 2 and the ablations) with the claims and figures."""
    from harness.common.uris import redact
    from harness.reports.table1.reproduce import reproduce
    from harness.reports.table1.rows import select_rows

    for name in ("seeds", "steps", "jobs", "limit"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ConfigError(f"--{name}={value} is out of range; allowed: >= 1")
    try:
        rows = select_rows(args.rows)
    except ValueError as err:
        raise ConfigError(str(err)) from None
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
