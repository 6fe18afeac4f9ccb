"""`harness table1` (`make reproduce-table1`): train every row on paired seeds, evaluate, report.

`rows` (what is trained and evaluated: the paper's rows and the Table 1 profiles), `reproduce` (the
command), `jobs` and `child_command` (the job runner and the child processes it starts),
`output_folder`, `build` (the report from MLflow), `claims`, `differences` and `staleness_section`.
May import `harness.reports.stats`, `harness.reports.render`, the training package and the harness
root. See docs/design.md.
"""
