"""`RLModule`: one LightningModule that trains any Hugging Face causal LM with any registered loss.

One Lightning epoch is one RL step (the epoch index is the step), which makes checkpoints and
`--resume` exact: prompts and sampling seeds are functions of (seed, step, rank). A step reads
top to bottom in `training_step`:

    the step's graded rollouts from the rollout source          (harness.training.rollout_source)
    -> group advantages -> the online reward check -> the rows to train on
    -> ppo_epochs x mini-batches of [forward -> objective -> backward -> clip grad norm -> AdamW step]
                                                                 (harness.training.policy_update)
    -> the new weights to the rollout source -> the metrics, reduced over ranks and logged

Under DDP every rank rolls out its share of the prompts and the loss is normalised by the
global token / sequence count, so the update equals the single-process update.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
from typing import TYPE_CHECKING

import lightning as L
import torch
from lightning.pytorch.strategies import FSDPStrategy

from algorithms import PolicyLoss, group_advantages
from harness.common.processes import raise_if_terminated
from harness.rollout.engine import Rollouts
from harness.schema import TrainConfig, loss_and_schedule
from harness.tasks import Task
from harness.training.policy_update import PolicyUpdate
from harness.training.reward_check import RewardCheck
from harness.training.rollout_source import Ranks, RolloutSource, rollout_source
from harness.training.step_batch import step_seed
from harness.training.step_metrics import StepMetrics

if TYPE_CHECKING:
    from pathlib import Path

    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from harness.training.run_dir import RolloutLog


class RLModule(L.LightningModule):
    def __init__(
        self,
        config: TrainConfig,
        policy: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        task: Task,
        reference: PreTrainedModel | None = None,
        rollout_log: RolloutLog | None = None,
        suspects_file: Path | None = None,
        rollouts: RolloutSource | None = None,
    ):
        super().__init__()
        self.automatic_optimization = False
        self.config = config
        self.policy = policy
        self.tokenizer = tokenizer
        self.task = task
        self.base_loss, self.schedule = loss_and_schedule(config.loss)
        # the online reward check (harness.training.reward_check); its examples file only on rank 0
        self.reward_check = RewardCheck(config.reward, config.run.seed, log_file=suspects_file, task=config.task)
        # where each step's rollouts come from (default: rollout.staleness picks the synchronous or asynchronous source)
        self.rollouts = rollouts if rollouts is not None else rollout_source(config, policy, tokenizer, task)
        # The frozen reference stays outside the module tree (a plain attribute of the update): no DDP sync, not saved.
        self.policy_update = PolicyUpdate(self, config, reference)
        self.rollout_log = rollout_log  # a RolloutLog on rank 0 (harness.training.run_dir), else None
        self.history: list[dict] = []  # per-step metrics, restored on resume
        self.bad_steps = 0
        self.stop_reason: str | None = None
        self.heldout_before: dict | None = None  # accuracy of the starting policy

    # ----------------------------------------------------------------- Lightning plumbing
    def configure_optimizers(self) -> tuple[list[torch.optim.Optimizer], list[torch.optim.lr_scheduler.LRScheduler]]:
        optim = self.config.optim
        opt = torch.optim.AdamW(self.policy.parameters(), lr=optim.lr, weight_decay=optim.weight_decay, fused=True)
        warmup = max(optim.warmup_steps, 1)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda update: min(1.0, (update + 1) / warmup))
        return [opt], [sched]

    def on_save_checkpoint(self, checkpoint: dict) -> None:
        checkpoint["rl_history"] = self.history
        checkpoint["rl_bad_steps"] = self.bad_steps
        checkpoint["rl_heldout_before"] = self.heldout_before

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        self.history = checkpoint.get("rl_history", [])
        self.bad_steps = checkpoint.get("rl_bad_steps", 0)
        self.heldout_before = checkpoint.get("rl_heldout_before")

    @property
    def world(self) -> tuple[int, int]:
        return (self.global_rank, self.trainer.world_size) if self._trainer else (0, 1)

    def all_reduce(self, value: torch.Tensor, op: str = "sum") -> torch.Tensor:
        """Sum (or max, min) over data-parallel ranks; the identity on one process."""
        if self._trainer is None or self.trainer.world_size == 1:
            return value
        return self.trainer.strategy.reduce(value.clone(), reduce_op=op)

    def train_dataloader(self) -> torch.utils.data.DataLoader:
        return torch.utils.data.DataLoader([0], batch_size=None)

    def on_train_start(self) -> None:
        # the source starts from the weights of now: a resume's or warm start's (step = current epoch)
        with self.full_weights():
            self.rollouts.start(self.policy, self.current_epoch, Ranks(*self.world, self.local_rank, self.all_reduce))

    def on_train_end(self) -> None:
        self.rollouts.close()

    @property
    def sharded(self) -> bool:
        """Are the parameters sharded over ranks (FSDP)?"""
        return self._trainer is not None and isinstance(self.trainer.strategy, FSDPStrategy)

    def clip_grad_norm(self) -> torch.Tensor:
        """Clip to optim.grad_clip; returns the global norm before clipping. Under FSDP each rank
        holds a shard of every gradient, and FSDP's own clip combines the shards' norms."""
        if self.sharded:
            return self.trainer.strategy.model.clip_grad_norm_(self.config.optim.grad_clip)
        return torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.config.optim.grad_clip)

    def full_weights(self) -> contextlib.AbstractContextManager:
        """The policy's full parameters for a copy into a rollout engine: under FSDP each rank holds a
        shard, and all ranks gather them together; otherwise nothing to do."""
        if not self.sharded:
            return contextlib.nullcontext()
        from torch.distributed.fsdp import FullyShardedDataParallel

        return FullyShardedDataParallel.summon_full_params(self.trainer.strategy.model, writeback=False)

    # ----------------------------------------------------------------- the RL step
    def training_step(self, batch: int, batch_idx: int) -> None:
        raise_if_terminated()  # a SIGTERM whose KeyboardInterrupt was swallowed stops the run here
        step = self.current_epoch
        metrics = StepMetrics()
        t0 = time.perf_counter()
        graded = self.rollouts.batch(step, metrics)
        sampled, rewards, correct, keep = graded.sampled, graded.rewards, graded.correct, graded.keep
        rollouts, answers = sampled.rollouts, sampled.answers
        t_rollout = time.perf_counter() - t0

        lengths = rollouts.response_mask.sum(-1)  # [N]
        G = self.config.rollout.group_size
        advantages = group_advantages(rewards, G, std_normalize=self.config.algo.advantage == "group_std")  # [N]
        metrics.add_rollout(rewards, correct, lengths, rollouts.truncated, keep, t_rollout)
        self.log_rollout_sample(step, rollouts, answers, rewards)
        suspects = self.reward_check.check(step, self.world[0], sampled, rewards, correct, metrics)

        t1 = time.perf_counter()
        rows = torch.nonzero(keep).squeeze(-1)  # [K]
        batch = self.policy_update.batch(rollouts.select(rows), advantages[keep], rewards[keep], correct[keep])
        loss_fn = self.loss_at_step(step)
        metrics.add_coefficients(loss_fn.coefficients())
        # Losses that draw tokens at random (clip_cov) use torch's default generator: seeded from
        # (seed, step, rank) so that a resumed run draws what the uninterrupted one drew.
        torch.manual_seed(step_seed(self.config.run.seed, step, self.world[0]) + 1)
        update_tokens = self.policy_update(batch, loss_fn, metrics) if len(batch) else 0
        metrics.maxima["without_update"] = 0.0 if len(batch) else 1.0  # dynamic sampling kept no group
        with self.full_weights():  # every rank takes part (FSDP gathers collectively), updated or not
            metrics.maxima.update(self.rollouts.publish(self.policy, version=step + 1))
        metrics.add_timing(update_tokens, time.perf_counter() - t1, self.optimizers().param_groups[0]["lr"])
        self.finish_step(step, metrics)
        if self.world[0] == 0:
            self.reward_check.warn(step, self.history[-1], suspects, functools.partial(print, file=sys.stderr))

    def loss_at_step(self, step: int) -> PolicyLoss:
        """The loss with this step's scheduled coefficients (the configured schedule, if any)."""
        if self.schedule is None:
            return self.base_loss
        return self.base_loss.with_coefficients(**self.schedule.values_at(step))

    # ----------------------------------------------------------------- bookkeeping
    def log_rollout_sample(self, step: int, rollouts: Rollouts, answers: list[str], rewards: torch.Tensor) -> None:
        """The first run.rollout_samples completions of the step into rollouts.jsonl (rank 0)."""
        texts = rollouts.texts[: self.config.run.rollout_samples]
        rows = [{"completion": t, "answer": a, "reward": float(r)} for t, a, r in zip(texts, answers, rewards)]
        if self.rollout_log is not None:
            self.rollout_log.write(step, rows)

    def say_if_nothing_trained(self, step: int, values: dict) -> None:
        """A step whose dynamic sampling kept no group updates nothing: one line says so, and a run in which
        no step updated the policy ends stopped (exit 1), never "completed"."""
        if not values.get("without_update"):
            return
        if self.world[0] == 0:
            print(
                f"step {step}: dynamic sampling kept no group in {values.get('gen_batches', 1):.0f} generation "
                f"batch(es) (algo.max_gen_batches={self.config.algo.max_gen_batches}): no update",
                file=sys.stderr,
            )
        if step + 1 >= self.config.run.steps and all(h.get("without_update") for h in self.history):
            self.stop_reason = (
                f"no step updated the policy: dynamic sampling kept no group in any of the {len(self.history)} "
                "steps (every group all right or all wrong); raise algo.max_gen_batches or warm-start the model"
            )

    def finish_step(self, step: int, metrics: StepMetrics) -> None:
        values = metrics.reduce(self.all_reduce)
        values["step"] = step
        self.history.append(values)
        if self.logger is not None:
            self.logger.log_metrics({k: v for k, v in values.items() if k != "step"}, step=step)
        self.say_if_nothing_trained(step, values)
        self.bad_steps = self.bad_steps + 1 if values["skipped_updates"] > 0 else 0
        if self.bad_steps >= self.config.run.max_bad_steps:
            self.stop_reason = (
                f"stopped at step {step}: non-finite loss or gradient in {self.bad_steps} consecutive steps "
                f"(run.max_bad_steps={self.config.run.max_bad_steps})"
            )
            self.trainer.should_stop = True
