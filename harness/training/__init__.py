"""The RL loop and everything only it uses: `harness train` from the config to the final model.

    harness.training.train.train(config)      # checks, run folder, model, Lightning, the run's end
    harness.training.rl_module.RLModule       # one Lightning epoch = one RL step

Here: the Lightning module, the rollout sources (rollout_source: synchronous, and the asynchronous
worker pair), the policy update (policy_update) and the config's choice of its correction and
objective (update_rules), step and update batches, log-probs, rewards and the online reward check, per-step metrics, the
warm start, held-out accuracy, validation, checkpoints, the run folder, the summary and progress.

May import: `algorithms`, `benchmarks`, `harness.common`, `harness.rollout` and the harness root
(schema, config machinery, tracking, models, tasks, evaluate). Never `harness.reports`: reports
read what training wrote. See docs/design.md.
"""
