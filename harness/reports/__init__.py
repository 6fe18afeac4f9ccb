"""What researchers read: Table 1, the leaderboard, the seed planner and the audits.

    harness table1 / leaderboard / plan / recipe-audit / grader-audit    # harness.reports.commands

Folders: `commands/` (the report sub-commands, one module each, registering themselves),
`table1/` (its rows, job runner, report builder and report sections), `stats/` (paired accuracy
intervals, power, significance groups, the seed planner), `render/` (tables, HTML pages, figures).
At this root: the leaderboard, the audits' reports and the paper's own numbers. May import
everything in `harness` (training runs are what it reports on), `benchmarks` and `harness.common`;
nothing imports it but the CLI. See docs/design.md.
"""
