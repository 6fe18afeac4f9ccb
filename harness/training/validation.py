"""Validation during training: every `run.eval_every` RL steps, score the live policy.

Held-out accuracy on the task (greedy) is always measured; with `run.eval_suite` set, a small
subset (`run.eval_limit` problems per benchmark, one sample at the paper's evaluation sampling)
of those benchmarks is run through the evaluation harness too. Figures go to the run's logger
at the current step and into `summary.json`; each subset's files land in `<output>/evals/`.
"""

from __future__ import annotations

from pathlib import Path

import lightning as L

from harness.training.heldout import heldout_accuracy


class ValidationCallback(L.Callback):
    def __init__(self, every: int, output_dir: Path, suite: str | None, limit: int, max_new_tokens: int):
        self.every = every
        self.output_dir = Path(output_dir)
        self.suite = suite
        self.limit = limit
        self.max_new_tokens = max_new_tokens

    def on_train_epoch_end(self, trainer, module):
        step = trainer.current_epoch
        if (step + 1) % self.every or not trainer.is_global_zero:
            return
        config = module.config
        figures = {
            "val_heldout_greedy_accuracy": heldout_accuracy(
                module.policy, module.tokenizer, module.task.heldout(), config.rollout.max_new_tokens, greedy=True
            )
        }
        if self.suite:
            figures.update(self.benchmark_subset(module, step))
        if trainer.logger is not None:
            trainer.logger.log_metrics(figures, step=step)
        if module.history and module.history[-1]["step"] == step:
            module.history[-1].update(figures)

    def benchmark_subset(self, module, step: int) -> dict[str, float]:
        from benchmarks import evaluate, resolve_suite
        from harness.evaluate import make_sampler
        from harness.schema import EVAL_TEMPERATURE, EVAL_TOP_P

        sampler = make_sampler(
            module.policy,
            module.tokenizer,
            max_new_tokens=self.max_new_tokens,
            temperature=EVAL_TEMPERATURE,
            top_p=EVAL_TOP_P,
        )
        results = evaluate(
            resolve_suite(self.suite),
            sampler,
            k=1,
            limit=self.limit,
            seed=step,
            output_dir=self.output_dir / "evals" / f"step{step}",
            progress=False,
        )
        figures = {"val_suite_avg": results["suite"]["avg"]}
        for name, bench in results["benchmarks"].items():
            metric = bench["primary_metric"]
            figures[f"val_{name}_{metric}"] = bench["metrics"][metric]["avg@1"]
        return figures
