"""The statistics behind every comparison the reports print, one idea per module.

`accuracy` (paired differences of accuracy with intervals and p-values, Holm), `crossed` (the variance
of a crossed seeds x problems mean and its interval), `welch_aspin` (the paired test's critical values),
`power` (the variance of a paired difference from its parts: seed and sample budgets, power by
simulation), `components` (the numbers a plan is made from), `pilot` (the power averaged over what a
pilot does not know), `logit_fit` (the logit model fitted to measured components, the plan's simulated
power), `simulate`, `stacked` and `calibration` (tables with a known truth, the reports' test on many of
them at once, and how often the statistics are right on them), `groups` (significance groups as table
columns), `seed_planner` (`harness plan`), `seed_stats` (means, spreads, Student-t intervals).
May import `harness.common`, `harness.tracking`, `harness.profiles` (the Table 1 budgets) and
`harness.reports.paper_numbers`; never Table 1, the leaderboard or anything that renders. See docs/design.md.
"""
