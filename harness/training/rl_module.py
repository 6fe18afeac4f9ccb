"""`RLModule`: one LightningModule that trains any Hugging Face causal LM with any registered loss.

One Lightning epoch is one RL step (the epoch index is the step), which makes checkpoints and
`--resume` exact: prompts and sampling seeds are functions of (seed, step, rank). A step reads
top to bottom in `training_step`:

    prompts -> G completions each -> rewards -> group advantages -> (drop flat groups)
    -> behaviour log-probs -> ppo_epochs x mini-batches of [loss -> aggregate -> backward
    -> clip grad norm -> AdamW step] -> weights into the rollout engine

Log-probabilities and entropies are always those of the distribution the rollouts were sampled
from: the logits are divided by `rollout.temperature` (as verl's and torchtune's actors do), for
the behaviour, the current and the reference policy alike.

Under DDP every rank rolls out its share of the prompts and the loss is normalised by the
global token / sequence count, so the update equals the single-process update.

A rollout engine with its own weights (vLLM) gets the policy's weights after the step's optimizer
updates, before the next rollouts (and once at the start, which covers warm starts and resumes).
With `rollout.tis_cap` set, the engine's own sampling log-probs come back with the rollouts and
each token's loss is weighted by the truncated importance ratio min(pi_old / pi_engine, C); see
`harness.rollout.engine.mismatch_weights`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import sys
import time
from typing import TYPE_CHECKING

import lightning as L
import torch
from lightning.pytorch.strategies import FSDPStrategy

from algorithms import (
    PolicyBatch,
    PolicyLoss,
    aggregate,
    batch_counts,
    group_advantages,
    kl_penalty,
)
from harness.common.processes import raise_if_terminated
from harness.rollout.backends import make_backend
from harness.rollout.engine import EngineOptions, Rollouts, mismatch_weights
from harness.schema import TrainConfig, loss_and_schedule
from harness.tasks import Task
from harness.training.async_rollout import AsyncRollouts
from harness.training.logprobs import response_logprobs
from harness.training.reward_check import RewardCheck
from harness.training.rewards import MathReward
from harness.training.staleness_metrics import behaviour_ratio_metrics, lag_metrics
from harness.training.step_batch import (
    GradedRollouts,
    StepRollouts,
    collect_step_rollouts,
    concat_step_rollouts,
    first_groups,
    grade_step_rollouts,
    mixed_groups,
    step_seed,
)
from harness.training.step_metrics import StepMetrics, add_clipped_lp_shares, quadrant_metrics
from harness.training.update_batch import UpdateBatch

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
    ):
        super().__init__()
        self.automatic_optimization = False
        self.config = config
        self.policy = policy
        self.tokenizer = tokenizer
        self.task = task
        # The frozen reference stays outside the module tree: no DDP sync, not in checkpoints.
        self._reference = [reference] if reference is not None else []
        self.base_loss, self.schedule = loss_and_schedule(config.loss)
        self.agg_mode = config.algo.agg_mode or self.base_loss.default_agg
        self.temperature = config.rollout.temperature
        self.reward_fn = MathReward(config.reward, config.rollout.max_new_tokens)
        # the online reward check (harness.training.reward_check); its examples file only on rank 0
        self.reward_check = RewardCheck(config.reward, config.run.seed, log_file=suspects_file)
        rollout = config.rollout
        engine = EngineOptions(
            gpu_memory_utilization=rollout.gpu_memory_utilization,
            kv_cache_gb=rollout.kv_cache_gb,
            tensor_parallel_size=rollout.tensor_parallel_size,
            seed=config.run.seed,
            # The engine computes in the trainer's compute dtype (bf16 mixed precision: bf16).
            dtype="bfloat16" if config.run.precision.startswith("bf16") else None,
        )
        # With rollout.staleness >= 1 each rank's rollout worker holds the engine (harness.training.async_rollout).
        self.backend = (
            make_backend(rollout.backend, policy, tokenizer, rollout.batch_size, engine)
            if not rollout.staleness
            else None
        )
        self.async_rollouts: AsyncRollouts | None = None  # started with the training (on_train_start)
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
        """Sum (or max) over data-parallel ranks; the identity on one process."""
        if self._trainer is None or self.trainer.world_size == 1:
            return value
        return self.trainer.strategy.reduce(value.clone(), reduce_op=op)

    def train_dataloader(self) -> torch.utils.data.DataLoader:
        return torch.utils.data.DataLoader([0], batch_size=None)

    def on_train_start(self) -> None:
        if self.config.rollout.staleness:
            # the worker starts from the weights of now: a resume's or warm start's (step = current epoch)
            rank, world = self.world
            local_rank = self.local_rank if self._trainer else 0
            self.async_rollouts = AsyncRollouts(
                self.config, self.policy, self.tokenizer, self.task, rank, world, self.current_epoch, local_rank
            )
            return
        self.sync_rollout_engine()  # the engine loaded the starting folder; a resume or warm start moved on

    def on_train_end(self) -> None:
        self.close_rollout_worker()

    def close_rollout_worker(self) -> None:
        """Stop this rank's rollout worker, if one runs (also on the way out of a failed run)."""
        if self.async_rollouts is not None:
            self.async_rollouts.close()
            self.async_rollouts = None

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

    def sync_rollout_engine(self) -> None:
        """Copy the policy's weights into the rollout engine, in memory (HF generate: nothing to do).
        Under FSDP each rank holds a shard: all ranks gather the full parameters for the copy."""
        gather = contextlib.nullcontext()
        if self.sharded:
            from torch.distributed.fsdp import FullyShardedDataParallel

            gather = FullyShardedDataParallel.summon_full_params(self.trainer.strategy.model, writeback=False)
        with gather:
            if self.backend is not None:
                self.backend.sync_weights(self.policy)

    # ----------------------------------------------------------------- the RL step
    def training_step(self, batch: int, batch_idx: int) -> None:
        raise_if_terminated()  # a SIGTERM whose KeyboardInterrupt was swallowed stops the run here
        step = self.current_epoch
        metrics = StepMetrics()
        t0 = time.perf_counter()
        graded = self.sample_step(step)
        sampled, rewards, correct, keep = graded.sampled, graded.rewards, graded.correct, graded.keep
        rollouts, answers = sampled.rollouts, sampled.answers
        t_rollout = time.perf_counter() - t0

        lengths = rollouts.response_mask.sum(-1)  # [N]
        G = self.config.rollout.group_size
        advantages = group_advantages(rewards, G, std_normalize=self.config.algo.advantage == "group_std")  # [N]
        metrics.add_rollout(rewards, correct, lengths, rollouts.truncated, keep, t_rollout)
        if self.config.algo.dynamic_sampling:
            metrics.add_scalar("gen_batches", graded.gen_batches, 1)
            metrics.add_scalar("kept_prompts", keep.sum() / G, 1)
        self.log_rollout_sample(step, rollouts, answers, rewards)
        suspects = self.reward_check.run(
            step, self.world[0], rollouts.texts, sampled.problems, answers, rewards.tolist(), correct.tolist()
        )
        if self.reward_check.enabled:
            metrics.add_reward_check(suspects.checked, suspects.flagged, suspects.credited)

        t1 = time.perf_counter()
        # The official recipes' NLL term takes the responses whose reward is exactly the correct score.
        positive = rewards[keep] == self.config.reward.correct if self.config.algo.positive_nll_coef > 0 else None
        batch = UpdateBatch.from_rollouts(rollouts.select(torch.nonzero(keep).squeeze(-1)), advantages[keep], positive)
        if sampled.versions is not None:
            lag_metrics(metrics, step - sampled.versions[keep], self.config.rollout.staleness)
            metrics.maxima["worker_seconds"] = graded.worker_seconds
        if self._reference and len(batch):
            batch = dataclasses.replace(batch, ref_logp=self.logprobs(self._reference[0], batch))
        loss_fn = self.loss_at_step(step)
        metrics.add_coefficients(loss_fn.coefficients())
        # Losses that draw tokens at random (clip_cov) use torch's default generator: seeded from
        # (seed, step, rank) so that a resumed run draws what the uninterrupted one drew.
        torch.manual_seed(self.step_seed(step) + 1)
        update_tokens = self.update_policy(batch, loss_fn, metrics) if len(batch) else 0
        if self.async_rollouts is None:
            self.sync_rollout_engine()  # every rank calls it (FSDP gathers collectively), updated or not
        elif step + 1 < self.config.run.steps:
            t_publish = time.perf_counter()
            self.async_rollouts.publish(self.policy, version=step + 1)
            metrics.maxima["publish_seconds"] = time.perf_counter() - t_publish
        metrics.add_timing(update_tokens, time.perf_counter() - t1, self.optimizers().param_groups[0]["lr"])
        self.finish_step(step, metrics)
        if self.world[0] == 0:
            self.reward_check.warn(step, self.history[-1], suspects, functools.partial(print, file=sys.stderr))

    def step_seed(self, position: int) -> int:
        """The sampling seed of data position `position` on this rank."""
        return step_seed(self.config.run.seed, position, self.world[0])

    def sample_step(self, step: int) -> GradedRollouts:
        """This rank's graded rollouts of step `step` and the rows it trains on: one generation batch,
        or with dynamic sampling up to algo.max_gen_batches of them (see harness.training.step_batch)."""
        algo, rollout = self.config.algo, self.config.rollout
        G, world = rollout.group_size, self.world[1]
        if not algo.dynamic_sampling:
            sampled, rewards, correct, seconds = self.graded_batch(step)
            keep = torch.ones(len(rewards), dtype=torch.bool)
            return GradedRollouts(sampled, rewards, correct, keep, 1, seconds)
        wanted = rollout.prompts_per_step // world  # groups this rank trains on at most
        parts, rewards, correct, seconds = [], [], [], 0.0
        for index in range(algo.max_gen_batches):
            part, batch_rewards, batch_correct, part_seconds = self.graded_batch(
                step * algo.max_gen_batches + index, regular=index == 0
            )
            parts.append(part)
            seconds += part_seconds
            rewards.append(batch_rewards)
            correct.append(batch_correct)
            varied = torch.cat(correct) if algo.filter_metric == "acc" else torch.cat(rewards)  # [N so far]
            mixed = mixed_groups(varied, G)  # [groups so far]
            # every rank trains on as many groups as the rank that kept the fewest
            kept = int(self.all_reduce(torch.tensor(min(int(mixed.sum()), wanted)), op="min"))
            if kept >= wanted:
                break
        pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        sampled = concat_step_rollouts(parts, pad_id)
        keep = first_groups(mixed, kept, G)
        return GradedRollouts(sampled, torch.cat(rewards), torch.cat(correct), keep, len(parts), seconds)

    def graded_batch(
        self, position: int, regular: bool = True
    ) -> tuple[StepRollouts, torch.Tensor, torch.Tensor, float]:
        """(rollouts, rewards [N], correct [N], generation seconds) of data position `position`: sampled now,
        or with rollout.staleness >= 1 by this rank's worker (`regular`: a step's first generation batch,
        generated ahead on the schedule; else asked for now)."""
        if self.async_rollouts is not None:
            return self.async_rollouts.fetch(position, regular)
        t0 = time.perf_counter()
        sampled = self.collect_rollouts(position)
        rewards, correct = self.grade(sampled)
        return sampled, rewards, correct, time.perf_counter() - t0

    def grade(self, sampled: StepRollouts) -> tuple[torch.Tensor, torch.Tensor]:
        """(rewards [N], correct [N]) of the rows, graded knowing each row's problem and truncation."""
        return grade_step_rollouts(self.reward_fn, sampled)

    def collect_rollouts(self, position: int) -> StepRollouts:
        """This rank's rollouts of data position `position` (see harness.training.step_batch.collect_step_rollouts)."""
        rank, world = self.world
        return collect_step_rollouts(self.config, self.task, self.tokenizer, self.backend, position, rank, world)

    def loss_at_step(self, step: int) -> PolicyLoss:
        """The loss with this step's scheduled coefficients (the configured schedule, if any)."""
        if self.schedule is None:
            return self.base_loss
        return self.base_loss.with_coefficients(**self.schedule.values_at(step))

    @torch.no_grad()
    def logprobs(self, model: PreTrainedModel, batch: UpdateBatch) -> torch.Tensor:
        """log-probs [K, T] of the response tokens under `model` at the sampling temperature."""
        logp, _ = response_logprobs(
            model,
            batch.input_ids,
            batch.attention_mask,
            batch.prompt_length,
            chunk=self.config.algo.logprob_chunk,
            temperature=self.temperature,
        )
        return logp  # [K, T]

    @property
    def staleness_correction(self) -> str | None:
        """How the loss sees stale rollouts ("decoupled" | "behaviour"), None when they are fresh (staleness 0)."""
        rollout = self.config.rollout
        return rollout.staleness_correction if rollout.staleness else None

    def update_policy(self, batch: UpdateBatch, loss_fn: PolicyLoss, metrics: StepMetrics) -> int:
        """ppo_epochs x mini_batches optimizer updates on one rollout batch; returns tokens processed."""
        algo = self.config.algo
        opt = self.optimizers()
        sched = self.lr_schedulers()  # None when the optimizer comes without a scheduler
        self.policy.eval()  # no dropout: old and new log-probs must agree before any update
        n_rows = len(batch)
        size = max(1, math.ceil(n_rows / algo.mini_batches))
        minis = [torch.arange(start, min(start + size, n_rows)) for start in range(0, n_rows, size)]
        # Behaviour log-probs. The policy has not moved before the first update, so the first
        # mini-batch's come from its own forward pass (returned by `one_update`); the other rows
        # are scored now, once, before anything changes.
        # With rollout.staleness_correction=behaviour the loss's old policy is the generating one, whose
        # log-probs came with the rollouts: nothing to score (harness.training.staleness_metrics).
        correction = self.staleness_correction
        old_logp = batch.engine_logp if correction == "behaviour" else None  # [K, T] once known
        score_rest = old_logp is None and n_rows > size
        rest = self.logprobs(self.policy, batch.rows(torch.arange(size, n_rows))) if score_rest else None
        tokens = 0
        for epoch in range(algo.ppo_epochs):
            for index, rows in enumerate(minis):
                raise_if_terminated()
                loss_value, grad_norm, fresh_logp = self.one_update(
                    batch.rows(rows), None if old_logp is None else old_logp[rows], loss_fn, metrics
                )
                if correction is not None and epoch == 0 and index == 0:
                    # the first forward (and the rows scored before it) is the proximal policy, pi at the step's start
                    prox = fresh_logp if rest is None else torch.cat([fresh_logp, rest])  # [k, T]
                    seen = batch.rows(torch.arange(len(prox)))
                    cap = self.config.rollout.behaviour_cap if correction == "decoupled" else None
                    behaviour_ratio_metrics(
                        metrics, prox, seen.engine_logp, seen.mask, seen.advantages, cap, loss_fn.clip_bounds
                    )
                if old_logp is None:
                    old_logp = fresh_logp if rest is None else torch.cat([fresh_logp, rest])  # [K, T]
                tokens += int(batch.attention_mask[rows].sum())
                finite = math.isfinite(loss_value) and math.isfinite(grad_norm)
                metrics.add_update(loss_value, grad_norm, finite)
                if finite:
                    opt.step()
                    if sched is not None:
                        sched.step()
                opt.zero_grad(set_to_none=True)
        return tokens

    def one_update(
        self, mini: UpdateBatch, old_logp: torch.Tensor | None, loss_fn: PolicyLoss, metrics: StepMetrics
    ) -> tuple[float, float, torch.Tensor]:
        """Accumulate the gradient of one mini-batch over micro-batches.

        Returns (loss, grad norm before clipping, the detached log-probs [k, T] of this forward).
        `old_logp` None means the policy has not moved since the rollouts: the behaviour log-probs
        are then this forward's own, detached (every ratio is exactly 1)."""
        algo = self.config.algo
        _, world = self.world
        # Global counts over this mini-batch on every rank: the denominators of `aggregate`.
        n_tokens, n_seqs = batch_counts(mini.mask)
        counts = dict(
            num_tokens=self.all_reduce(n_tokens.float()),
            num_seqs=self.all_reduce(n_seqs.float()),
            max_len=self.config.rollout.max_new_tokens,
        )
        positive_counts = {}
        if mini.positive is not None:
            n_pos_tokens, n_pos_seqs = batch_counts(mini.positive_mask)
            positive_counts = dict(
                num_tokens=self.all_reduce(n_pos_tokens.float()),
                num_seqs=self.all_reduce(n_pos_seqs.float()),
                max_len=self.config.rollout.max_new_tokens,
            )
        total, fresh = 0.0, []
        for start in range(0, len(mini), algo.micro_batch_size):
            micro = mini.rows(torch.arange(start, min(start + algo.micro_batch_size, len(mini))))
            logp, entropy = response_logprobs(
                self.policy,
                micro.input_ids,
                micro.attention_mask,
                micro.prompt_length,
                chunk=algo.logprob_chunk,
                with_entropy=True,
                temperature=self.temperature,
            )  # [m, T], [m, T]
            fresh.append(logp.detach())
            behaviour = logp.detach() if old_logp is None else old_logp[start : start + len(micro)]  # [m, T]
            policy_batch = PolicyBatch(
                logp=logp,
                old_logp=behaviour,
                advantages=micro.advantages,
                mask=micro.mask,
                ref_logp=micro.ref_logp,
                entropy=entropy,
            )
            out = loss_fn(policy_batch)
            per_token = out.per_token  # [m, T]
            # Truncated importance weights min(pi_old / pi_engine, C): the train/inference mismatch at staleness 0
            # (rollout.tis_cap), or decoupled PPO's min(pi_prox / pi_behav, C) with stale rollouts
            # (harness.training.staleness_metrics)
            cap = self.config.rollout.tis_cap if self.staleness_correction is None else None
            cap = self.config.rollout.behaviour_cap if self.staleness_correction == "decoupled" else cap
            if micro.engine_logp is not None and cap is not None:
                weights, stats = mismatch_weights(behaviour, micro.engine_logp, micro.mask, cap)
                per_token = per_token * weights  # [m, T]
                if self.staleness_correction is None:  # stale rows log their behaviour_* figures once a step
                    metrics.add_loss_metrics(stats, float(micro.mask.sum()))
            loss = aggregate(per_token, micro.mask, self.agg_mode, **counts)
            if micro.positive is not None:
                # NLL on the rewarded responses (the official CE-GPPO recipe's positive_loss_coeff):
                # -log pi of their tokens, reduced like the policy loss over the mini-batch's positive
                # tokens and responses, d loss / d logp_t = -coef / N_pos (token_mean) on those tokens
                positive_mask = micro.positive_mask  # [m, T]
                nll = aggregate(-logp, positive_mask, self.agg_mode, **positive_counts)
                loss = loss + algo.positive_nll_coef * nll
                metrics.add_scalar("positive_nll", nll.detach() * len(micro), weight=len(micro))
            if micro.ref_logp is not None and algo.kl_coef > 0:
                kl = kl_penalty(logp, micro.ref_logp, micro.mask, algo.kl_estimator)  # [m, T]
                kl_value = aggregate(kl, micro.mask, self.agg_mode, **counts)
                loss = loss + algo.kl_coef * kl_value
                metrics.add_scalar("kl_ref", kl_value.detach() * len(micro), weight=len(micro))
            weight = float(micro.mask.sum())
            metrics.add_quadrants(quadrant_metrics(policy_batch, out.per_token, algo.quadrant_threshold), weight)
            add_clipped_lp_shares(metrics, policy_batch, loss_fn.clip_bounds, algo.quadrant_threshold)
            # DDP averages gradients over ranks; the loss is already a share of the global sum.
            self.manual_backward(loss * world)
            total += float(loss.detach())
            metrics.add_loss_metrics(out.metrics, weight)
            metrics.add_scalar("entropy", (entropy.detach() * micro.mask).sum(), weight=weight)
        grad_norm = self.clip_grad_norm()
        return self.all_reduce(torch.tensor(total)).item(), float(grad_norm), torch.cat(fresh)

    # ----------------------------------------------------------------- bookkeeping
    def log_rollout_sample(self, step: int, rollouts: Rollouts, answers: list[str], rewards: torch.Tensor) -> None:
        if self.rollout_log is None:
            return
        count = min(self.config.run.rollout_samples, len(rollouts.texts))
        self.rollout_log.write(
            step,
            [
                {"completion": rollouts.texts[i], "answer": answers[i], "reward": float(rewards[i])}
                for i in range(count)
            ],
        )

    def finish_step(self, step: int, metrics: StepMetrics) -> None:
        values = metrics.reduce(self.all_reduce)
        values["step"] = step
        self.history.append(values)
        if self.logger is not None:
            self.logger.log_metrics({k: v for k, v in values.items() if k != "step"}, step=step)
        self.bad_steps = self.bad_steps + 1 if values["skipped_updates"] > 0 else 0
        if self.bad_steps >= self.config.run.max_bad_steps:
            self.stop_reason = (
                f"stopped at step {step}: non-finite loss or gradient in {self.bad_steps} consecutive steps "
                f"(run.max_bad_steps={self.config.run.max_bad_steps})"
            )
            self.trainer.should_stop = True
