"""`harness table1` (`make reproduce-table1`): train every row on paired seeds, evaluate, report.

`rows` (what is trained and evaluated: the paper's rows; the profiles' Table 1 settings are in
harness.profiles), `reproduce` (the command), `jobs` and `child_command` (the job runner and the
child processes it starts), `output_folder`, `build` (the report from MLflow: the table, then the
sections), `claims` and `differences` (what two sections compute). `sections/`: the report's
sections, one module each, registering itself. May import `harness.reports.stats`,
`harness.reports.render`, the training package and the harness root. See docs/design.md.
"""
