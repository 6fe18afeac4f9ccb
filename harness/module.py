"""`RLModule`: one LightningModule that trains any Hugging Face causal LM with any registered loss.

One Lightning epoch is one RL step (the epoch index is the step), which makes checkpoints and
`--resume` exact: prompts and sampling seeds are functions of (seed, step, rank). A step:

    prompts -> G completions each -> rewards -> group advantages -> (drop flat groups)
    -> old log-probs once -> ppo_epochs x mini-batches of [loss -> aggregate -> backward
    -> clip grad norm -> AdamW step]

Under DDP every rank rolls out its share of the prompts and the loss is normalised by the
global token / sequence count, so the update equals the single-process update.
"""

from __future__ import annotations

import dataclasses
import math
import time

import lightning as L
import torch

from algorithms import PolicyBatch, aggregate, batch_counts, get_loss, group_advantages, kl_penalty
from harness.logprobs import response_logprobs
from harness.metrics import StepMetrics, add_clipped_lp_shares, quadrant_metrics
from harness.rewards import MathReward
from harness.rollout import HFGenerateBackend, Rollouts, SamplingParams
from harness.tasks import format_prompt
from harness.train_config import TrainConfig, beta_schedule


class RLModule(L.LightningModule):
    def __init__(self, config: TrainConfig, policy, tokenizer, task, reference=None):
        super().__init__()
        self.automatic_optimization = False
        self.config = config
        self.policy = policy
        self.tokenizer = tokenizer
        self.task = task
        # The frozen reference stays outside the module tree: no DDP sync, not in checkpoints.
        self._reference = [reference] if reference is not None else []
        params = dict(config.loss)
        self.base_loss = get_loss(params.pop("name"), **params)
        self.agg_mode = config.algo.agg_mode or self.base_loss.default_agg
        self.beta_schedule = beta_schedule(config.algo, self.base_loss)
        self.reward_fn = MathReward(config.reward, config.rollout.max_new_tokens)
        self.backend = HFGenerateBackend(policy, tokenizer, config.rollout.batch_size)
        self.history: list[dict] = []  # per-step metrics, restored on resume
        self.bad_steps = 0
        self.stop_reason: str | None = None
        self.heldout_before: dict | None = None  # accuracy of the starting policy
        self.rollout_log: list[dict] = []  # a sample of rollouts per step, for the artifact

    # ----------------------------------------------------------------- Lightning plumbing
    def configure_optimizers(self):
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

    # ----------------------------------------------------------------- rollouts
    def collect_rollouts(self, step: int) -> tuple[Rollouts, list[str]]:
        """This rank's rollouts of step `step` and the reference answer of each row."""
        rank, world = self.world
        rollout = self.config.rollout
        problems = self.task.train_batch(step, rollout.prompts_per_step, self.config.run.seed)[rank::world]
        torch.manual_seed(self.config.run.seed * 7919 + step * 104_729 + rank)
        prompts = [format_prompt(self.tokenizer, p.prompt) for p in problems]
        params = SamplingParams(rollout.max_new_tokens, rollout.temperature, rollout.top_p)
        rollouts = self.backend.generate(prompts, rollout.group_size, params)
        answers = [problems[i].answer for i in rollouts.prompt_index.tolist()]
        return rollouts, answers

    # ----------------------------------------------------------------- the RL step
    def train_dataloader(self):
        return torch.utils.data.DataLoader([0], batch_size=None)

    def training_step(self, batch, batch_idx):
        step = self.current_epoch
        metrics = StepMetrics()
        t0 = time.perf_counter()
        rollouts, answers = self.collect_rollouts(step)
        t_rollout = time.perf_counter() - t0
        lengths = rollouts.response_mask.sum(-1)  # [N]
        rewards, correct = self.reward_fn(rollouts.texts, answers, lengths)  # [N], [N]
        G = self.config.rollout.group_size
        advantages = group_advantages(rewards, G, std_normalize=self.config.algo.advantage == "group_std")  # [N]
        keep = torch.ones(len(rewards), dtype=torch.bool)
        if self.config.algo.dynamic_sampling:
            from algorithms import dynamic_sampling_filter

            keep = dynamic_sampling_filter(rewards, G).repeat_interleave(G)  # [N]
        metrics.add_rollout(rewards, correct, lengths, rollouts.truncated, keep, t_rollout)
        self.log_rollout_sample(step, rollouts, answers, rewards)

        t1 = time.perf_counter()
        batch = rollouts.select(torch.nonzero(keep).squeeze(-1))
        adv = advantages[keep]  # [K]
        loss_fn = self.loss_at_step(step)
        metrics.add_betas(loss_fn)
        update_tokens = self.update_policy(batch, adv, loss_fn, metrics) if len(adv) else 0
        metrics.add_timing(update_tokens, time.perf_counter() - t1, self.optimizers().param_groups[0]["lr"])
        self.finish_step(step, metrics)

    def loss_at_step(self, step: int):
        """The loss with CE-GPPO's betas of this step (the configured schedule)."""
        if self.beta_schedule is None:
            return self.base_loss
        beta1, beta2 = self.beta_schedule.beta_at(step)
        return dataclasses.replace(self.base_loss, beta1=beta1, beta2=beta2)

    @torch.no_grad()
    def reference_logprobs(self, model, batch: Rollouts) -> torch.Tensor:
        chunk = self.config.algo.logprob_chunk
        logp, _ = response_logprobs(
            model, batch.input_ids, batch.attention_mask, batch.prompt_ids.shape[1], chunk=chunk
        )
        return logp  # [K, T]

    def update_policy(self, batch: Rollouts, adv: torch.Tensor, loss_fn, metrics: StepMetrics) -> int:
        """ppo_epochs x mini_batches optimizer updates on one rollout batch; returns tokens processed."""
        algo = self.config.algo
        opt = self.optimizers()
        sched = self.lr_schedulers()  # None when the optimizer comes without a scheduler
        self.policy.eval()  # no dropout: old and new log-probs must agree before any update
        n_rows = len(adv)
        mini = max(1, math.ceil(n_rows / algo.mini_batches))
        # The first mini-batch is scored before any optimizer step, so its old log-probs are the
        # detached log-probs of its own forward pass; only the other rows need a separate pass.
        old_logp = torch.zeros(batch.response_ids.shape, device=self.device)  # [K, T]
        if n_rows > mini:
            rest = torch.arange(mini, n_rows)
            old_logp[rest] = self.reference_logprobs(self.policy, batch.select(rest))  # [K - mini, T]
        ref_logp = self.reference_logprobs(self._reference[0], batch) if self._reference else None
        mask = batch.response_mask.float()  # [K, T]
        tokens = 0
        for epoch in range(algo.ppo_epochs):
            for start in range(0, n_rows, mini):
                rows = torch.arange(start, min(start + mini, n_rows))
                fill_old = epoch == 0 and start == 0
                loss_value, grad_norm = self.one_update(
                    batch, rows, adv, old_logp, ref_logp, mask, loss_fn, metrics, fill_old
                )
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
        self, batch, rows, adv, old_logp, ref_logp, mask, loss_fn, metrics, fill_old: bool
    ) -> tuple[float, float]:
        """Accumulate gradients of one mini-batch over micro-batches; returns (loss, grad norm).

        With `fill_old` the policy has not moved yet: each micro-batch's old log-probs are taken
        from its own forward pass (written into `old_logp`)."""
        algo = self.config.algo
        _, world = self.world
        # Global counts over this mini-batch on every rank: the denominators of `aggregate`.
        n_tokens, n_seqs = batch_counts(mask[rows])
        n_tokens, n_seqs = self.all_reduce(n_tokens.float()), self.all_reduce(n_seqs.float())
        max_len = self.config.rollout.max_new_tokens
        total = 0.0
        for start in range(0, len(rows), algo.micro_batch_size):
            micro = rows[start : start + algo.micro_batch_size]
            logp, entropy = response_logprobs(
                self.policy,
                batch.input_ids[micro],
                batch.attention_mask[micro],
                batch.prompt_ids.shape[1],
                chunk=algo.logprob_chunk,
                with_entropy=True,
            )  # [m, T], [m, T]
            if fill_old:
                old_logp[micro] = logp.detach()
            policy_batch = PolicyBatch(
                logp=logp,
                old_logp=old_logp[micro],
                advantages=adv[micro],
                mask=mask[micro],
                ref_logp=None if ref_logp is None else ref_logp[micro],
                entropy=entropy,
            )
            out = self.compute_loss(loss_fn, policy_batch)
            counts = dict(num_tokens=n_tokens, num_seqs=n_seqs, max_len=max_len)
            loss = aggregate(out.per_token, policy_batch.mask, self.agg_mode, **counts)
            if ref_logp is not None and algo.kl_coef > 0:
                kl = kl_penalty(logp, policy_batch.ref_logp, policy_batch.mask, algo.kl_estimator)  # [m, T]
                kl_value = aggregate(kl, policy_batch.mask, self.agg_mode, **counts)
                loss = loss + algo.kl_coef * kl_value
                metrics.add_scalar("kl_ref", kl_value.detach() * len(micro), weight=len(micro))
            weight = float(policy_batch.mask.sum())
            quadrants = quadrant_metrics(policy_batch, out.per_token, algo.quadrant_threshold)
            metrics.add_quadrants(quadrants, weight)
            add_clipped_lp_shares(metrics, policy_batch, loss_fn, algo.quadrant_threshold)
            # DDP averages gradients over ranks; the loss is already a share of the global sum.
            self.manual_backward(loss * world)
            total += float(loss.detach())
            metrics.add_loss_metrics(out.metrics, weight)
            metrics.add_scalar("entropy", (entropy.detach() * policy_batch.mask).sum(), weight=weight)
        grad_norm = torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.config.optim.grad_clip)
        return self.all_reduce(torch.tensor(total)).item(), float(grad_norm)

    def compute_loss(self, loss_fn, policy_batch: PolicyBatch):
        return loss_fn(policy_batch)

    # ----------------------------------------------------------------- bookkeeping
    def log_rollout_sample(self, step: int, rollouts: Rollouts, answers: list[str], rewards: torch.Tensor):
        for i in range(min(self.config.run.rollout_samples, len(rollouts.texts))):
            self.rollout_log.append(
                {"step": step, "completion": rollouts.texts[i], "answer": answers[i], "reward": float(rewards[i])}
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
