"""The policy update of one RL step: ppo_epochs x mini-batches of optimizer updates on one rollout batch.

    update = PolicyUpdate(module, config, reference)
    tokens = update(update.batch(rollouts, advantages, rewards), loss_fn, metrics)

Each update reads forward -> objective -> backward, per micro-batch, then clip and step:

    log-probs and entropy of the micro-batch at the sampling temperature     (harness.training.logprobs)
    -> PolicyBatch(logp, old_logp, advantages, mask, ref_logp, entropy)
    -> the objective: the loss, weighted by the off-policy correction, aggregated over the whole
       mini-batch's tokens and sequences on every rank, plus the NLL / KL terms  (algorithms.update_objective)
    -> backward; after the last micro-batch: clip the gradient norm, optimizer and LR-scheduler step
       (a non-finite loss or gradient skips the step)

Log-probabilities and entropies are always those of the distribution the rollouts were sampled
from: the logits are divided by `rollout.temperature` (as verl's and torchtune's actors do), for
the old, the current and the reference policy alike.

When the loss reads the old policy's entropy (ERC) or algo.top_entropy_quantile is set (the 80/20 rule),
one no-grad pass over all the step's rows before the first update gives pi_prox's log-probs and
entropies at once; the 80/20 mask is computed from them once per step and multiplies the per-token
weights (algorithms.top_entropy). Otherwise the scoring goes as follows.

The loss's old policy is the off-policy correction's choice (algorithms.corrections, picked once by
harness.training.update_rules): the sampling log-probs that came with the rollouts, or the trainer's
own before the first update (pi_prox). Those are scored once: the policy has not moved before the
first update, so the first mini-batch's come from its own forward (every ratio exactly 1) and the
other rows are scored before anything changes. The correction's metrics are taken then, over the rows
whose pi_prox is known.

The module that owns the optimizer (`host`, the RLModule) provides: `policy`, `optimizers()`,
`lr_schedulers()`, `manual_backward(loss)`, `clip_grad_norm()`, `all_reduce(value, op)` and `world`.
"""

from __future__ import annotations

import dataclasses
import math

import torch

from algorithms import PolicyBatch, PolicyLoss, UpdateObjective, batch_counts, top_entropy_mask
from harness.common.processes import raise_if_terminated
from harness.rollout.engine import Rollouts
from harness.training.logprobs import response_logprobs
from harness.training.step_metrics import StepMetrics, add_clipped_lp_shares, quadrant_metrics
from harness.training.update_batch import UpdateBatch
from harness.training.update_rules import correction_for, objective_for, positive_rows


class PolicyUpdate:
    def __init__(self, host, config, reference=None):
        self.host = host
        self.config = config
        self.reference = reference  # frozen reference policy of the KL term, or None
        self.correction = correction_for(config.rollout)

    def batch(
        self, rollouts: Rollouts, advantages: torch.Tensor, rewards: torch.Tensor, correct: torch.Tensor
    ) -> UpdateBatch:
        """The rows to train on (all of `rollouts`, with their advantages [K], rewards [K] and verdicts [K])."""
        return UpdateBatch.from_rollouts(rollouts, advantages, positive_rows(self.config, rewards, correct))

    @torch.no_grad()
    def score(self, model, batch: UpdateBatch) -> torch.Tensor:
        """log-probs [K, T] of the response tokens under `model` at the sampling temperature."""
        return self.score_with_entropy(model, batch, with_entropy=False)[0]  # [K, T]

    @torch.no_grad()
    def score_with_entropy(self, model, batch: UpdateBatch, with_entropy: bool = True):
        """(log-probs [K, T], entropies [K, T] over the whole vocabulary, or None) under `model` at the sampling
        temperature."""
        return response_logprobs(
            model,
            batch.input_ids,
            batch.attention_mask,
            batch.prompt_length,
            chunk=self.config.algo.logprob_chunk,
            with_entropy=with_entropy,
            temperature=self.config.rollout.temperature,
        )

    def with_step_entropy(self, batch: UpdateBatch, loss_fn: PolicyLoss, metrics: StepMetrics):
        """(batch with old_entropy and the 80/20 gate, pi_prox log-probs [K, T]) from one no-grad pass over all
        rows before any update, or (batch, None) when neither the loss (ERC) nor algo.top_entropy_quantile
        needs the old policy's entropy."""
        quantile = self.config.algo.top_entropy_quantile
        if not loss_fn.needs_old_entropy and quantile is None:
            return batch, None
        proximal, old_entropy = self.score_with_entropy(self.host.policy, batch)  # [K, T], [K, T]
        gate = None
        if quantile is not None:  # once per step, over all of this rank's response tokens
            gate = top_entropy_mask(old_entropy, batch.mask, quantile).to(batch.mask.dtype)  # [K, T]
            metrics.add_scalar("top_entropy_masked_frac", (batch.mask - gate).sum(), batch.mask.sum())
        return dataclasses.replace(batch, old_entropy=old_entropy, entropy_gate=gate), proximal

    def __call__(self, batch: UpdateBatch, loss_fn: PolicyLoss, metrics: StepMetrics) -> int:
        """ppo_epochs x mini_batches optimizer updates on a non-empty batch; returns the tokens processed."""
        algo, host, correction = self.config.algo, self.host, self.correction
        if self.reference is not None:
            batch = dataclasses.replace(batch, ref_logp=self.score(self.reference, batch))
        objective = objective_for(self.config, loss_fn)
        opt = host.optimizers()
        sched = host.lr_schedulers()  # None when the optimizer comes without a scheduler
        host.policy.eval()  # no dropout: old and new log-probs must agree before any update
        n_rows = len(batch)
        size = max(1, math.ceil(n_rows / algo.mini_batches))
        minis = [torch.arange(start, min(start + size, n_rows)) for start in range(0, n_rows, size)]
        old_logp = batch.engine_logp if correction.old_policy == "behaviour" else None  # [K, T] once known
        batch, proximal = self.with_step_entropy(batch, loss_fn, metrics)  # proximal: None without that pass
        if proximal is not None:
            self.log_correction(batch, proximal, loss_fn, metrics)
            old_logp = proximal if old_logp is None else old_logp
        score_rest = old_logp is None and n_rows > size
        rest = self.score(host.policy, batch.rows(torch.arange(size, n_rows))) if score_rest else None
        tokens = 0
        for epoch in range(algo.ppo_epochs):
            for index, rows in enumerate(minis):
                raise_if_terminated()
                mini_old = None if old_logp is None else old_logp[rows]
                loss_value, grad_norm, fresh_logp = self.one_update(batch.rows(rows), mini_old, objective, metrics)
                if epoch == 0 and index == 0 and proximal is None:
                    # the first forward (and the rows scored before it) is pi_prox, the policy at the step's start
                    proximal = fresh_logp if rest is None else torch.cat([fresh_logp, rest])  # [k, T]
                    self.log_correction(batch.rows(torch.arange(len(proximal))), proximal, loss_fn, metrics)
                    if old_logp is None:
                        old_logp = proximal  # [K, T]
                tokens += int(batch.attention_mask[rows].sum())
                finite = math.isfinite(loss_value) and math.isfinite(grad_norm)
                metrics.add_update(loss_value, grad_norm, finite)
                if finite:
                    opt.step()
                    if sched is not None:
                        sched.step()
                opt.zero_grad(set_to_none=True)
        return tokens

    def log_correction(self, seen: UpdateBatch, proximal: torch.Tensor, loss_fn: PolicyLoss, metrics) -> None:
        """The correction's figures of pi_prox / pi_behav over the rows `seen`, whose pi_prox [k, T] is known."""
        if seen.engine_logp is None:
            return  # no sampling log-probs came with the rollouts: nothing to compare
        figures = self.correction.metrics(proximal, seen.engine_logp, seen.mask, seen.advantages, loss_fn.clip_bounds)
        metrics.add_loss_metrics(figures, float(seen.mask.sum()))

    def one_update(
        self, mini: UpdateBatch, old_logp: torch.Tensor | None, objective: UpdateObjective, metrics: StepMetrics
    ) -> tuple[float, float, torch.Tensor]:
        """Accumulate the gradient of one mini-batch over micro-batches and clip it.

        Returns (loss, grad norm before clipping, the detached log-probs [k, T] of this forward).
        `old_logp` None means the policy has not moved since the step began: the loss's old
        log-probs are then this forward's own, detached (every ratio is exactly 1)."""
        algo, host = self.config.algo, self.host
        _, world = host.world
        counts = self.global_counts(mini.mask)  # the denominators of `aggregate`
        positive_counts = self.global_counts(mini.positive_mask) if mini.positive is not None else None
        total, fresh = 0.0, []
        for start in range(0, len(mini), algo.micro_batch_size):
            micro = mini.rows(torch.arange(start, min(start + algo.micro_batch_size, len(mini))))
            logp, entropy = response_logprobs(
                host.policy,
                micro.input_ids,
                micro.attention_mask,
                micro.prompt_length,
                chunk=algo.logprob_chunk,
                with_entropy=True,
                temperature=self.config.rollout.temperature,
            )  # [m, T], [m, T]
            fresh.append(logp.detach())
            old = logp.detach() if old_logp is None else old_logp[start : start + len(micro)]  # [m, T]
            # no pass at the step's start (one_update called alone): the policy has not moved, H_old = H
            old_entropy = micro.old_entropy if micro.old_entropy is not None else entropy.detach()  # [m, T]
            policy_batch = PolicyBatch(
                logp, old, micro.advantages, micro.mask, micro.ref_logp, entropy, old_entropy=old_entropy
            )
            weights = None
            if micro.engine_logp is not None:  # the correction's per-token weights, e.g. min(pi_prox / pi_behav, C)
                weights = self.correction.weights(old, micro.engine_logp, micro.mask)  # [m, T] or None
            if micro.entropy_gate is not None:  # 80/20 rule: no policy gradient outside the top-entropy tokens
                weights = micro.entropy_gate if weights is None else weights * micro.entropy_gate  # [m, T]
            positive_mask = micro.positive_mask if micro.positive is not None else None  # [m, T]
            out = objective(policy_batch, counts, weights, positive_mask, positive_counts)
            weight = float(micro.mask.sum())
            for name, value in out.terms.items():  # positive_nll, kl_ref: this micro-batch's share
                metrics.add_scalar(name, value * len(micro), weight=len(micro))
            metrics.add_quadrants(quadrant_metrics(policy_batch, out.policy.per_token, algo.quadrant_threshold), weight)
            add_clipped_lp_shares(metrics, policy_batch, objective.loss.clip_bounds, algo.quadrant_threshold)
            # DDP averages gradients over ranks; the loss is already a share of the global sum.
            host.manual_backward(out.total * world)
            total += float(out.total.detach())
            metrics.add_loss_metrics(out.policy.metrics, weight)
            metrics.add_scalar("entropy", (entropy.detach() * micro.mask).sum(), weight=weight)
        grad_norm = host.clip_grad_norm()
        return host.all_reduce(torch.tensor(total)).item(), float(grad_norm), torch.cat(fresh)

    def global_counts(self, mask: torch.Tensor) -> dict:
        """`aggregate`'s denominators for the mask [k, T] of one mini-batch: its tokens and sequences summed
        over every rank, and the constant length of seq_sum_norm."""
        n_tokens, n_seqs = batch_counts(mask)
        return dict(
            num_tokens=self.host.all_reduce(n_tokens.float()),
            num_seqs=self.host.all_reduce(n_seqs.float()),
            max_len=self.config.rollout.max_new_tokens,
        )
