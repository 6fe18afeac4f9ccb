"""Training, tracking, the `harness` command line and the reports of the CE-GPPO harness.

    harness train --profile tiny --loss ce_gppo      # harness.cli -> harness.training (train, rl_module)
    harness eval --model runs/train --suite math     # harness.evaluate -> benchmarks.evaluate
    harness table1 / harness leaderboard             # harness.reports

`harness.common` is the base layer every package imports (errors, files, store URIs);
`schema` declares every config; `module.RLModule` is one RL step. The map of the modules, the
path of one RL step and the extension points (a loss, a benchmark, a backend, a command) are in
docs/design.md.
"""
