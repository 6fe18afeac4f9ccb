"""Per-step training metrics: accumulated over micro-batches, reduced over data-parallel ranks.

Every metric is a weighted sum and a weight (token-weighted means for loss metrics, row-weighted
for rollout metrics), so micro-batches and ranks combine exactly; `*_max` metrics take the max.
The names are what MLflow shows and what `summary.json` stores per step.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

import torch

from algorithms import PolicyBatch, clipped_token_counts, grad_wrt_logp, quadrant_stats


def quadrant_metrics(batch: PolicyBatch, per_token: torch.Tensor, threshold: float) -> dict[str, torch.Tensor]:
    """Token fractions of PA&HP, PA&LP, NA&HP, NA&LP (probability under the behaviour policy) and
    each quadrant's share of the per-token gradient magnitude |d loss / d logp|."""
    coef = grad_wrt_logp(per_token, batch.logp)  # [B, T]
    stats = quadrant_stats(batch.advantages, batch.old_logp, batch.mask, prob_threshold=threshold, grad_coef=coef)
    return {f"quadrant_{name}": value for name, value in stats.items()}


def add_clipped_lp_shares(
    metrics: StepMetrics, batch: PolicyBatch, clip_bounds: tuple[float, float] | None, threshold: float
) -> None:
    """clip_low_lp_share / clip_high_lp_share: of the tokens clipped on each side, the share that
    is low-probability (pooled over the step). Only for losses that clip token ratios, i.e. that
    declare `clip_bounds` (eps_low, eps_high)."""
    if clip_bounds is None:
        return
    eps_low, eps_high = clip_bounds
    counts = clipped_token_counts(
        batch.advantages,
        batch.logp.detach(),
        batch.old_logp,
        batch.mask,
        eps_low=eps_low,
        eps_high=eps_high,
        prob_threshold=threshold,
    )
    for side in ("low", "high"):
        metrics.add_scalar(f"clip_{side}_lp_share", counts[f"clip_{side}_lp"], counts[f"clip_{side}"])


class StepMetrics:
    def __init__(self):
        self.sums: dict[str, float] = defaultdict(float)
        self.weights: dict[str, float] = defaultdict(float)
        self.maxima: dict[str, float] = {}
        self.totals: dict[str, float] = defaultdict(float)  # summed over ranks, not averaged
        self.totals["skipped_updates"] = 0.0  # present on a step with no update (dynamic sampling kept nothing)

    def add_scalar(self, name: str, weighted_sum, weight: float) -> None:
        self.sums[name] += float(weighted_sum)
        self.weights[name] += float(weight)

    def add_rollout(self, rewards, correct, lengths, truncated, keep, seconds: float) -> None:
        n = len(rewards)
        self.add_scalar("reward_mean", rewards.sum(), n)
        self.add_scalar("reward_sq", rewards.square().sum(), n)
        self.add_scalar("accuracy", correct.float().sum(), n)
        self.add_scalar("response_length", lengths.float().sum(), n)
        self.add_scalar("truncated_frac", truncated.float().sum(), n)
        self.add_scalar("kept_frac", keep.float().sum(), n)
        self.totals["rollout_tokens"] += float(lengths.sum())
        self.maxima["rollout_seconds"] = seconds

    def add_reward_check(self, checked: int, flagged: int, credited: int, by_reason: dict | None = None) -> None:
        """The online reward check (harness.training.reward_check): of the completions checked, the share the
        reward-hack detectors flag (reward_suspect_frac) and the share flagged yet rewarded as correct
        (reward_suspect_credited_frac, a grader escape); `by_reason` (reason -> flagged count, every
        reason on every rank) gives reward_suspect_frac_<reason>."""
        self.add_scalar("reward_suspect_frac", flagged, checked)
        self.add_scalar("reward_suspect_credited_frac", credited, checked)
        for reason, count in (by_reason or {}).items():
            self.add_scalar(f"reward_suspect_frac_{reason}", count, checked)

    def add_coefficients(self, coefficients: dict[str, float]) -> None:
        """The loss's schedulable coefficients at this step (CE-GPPO: beta1, beta2)."""
        self.maxima.update(coefficients)

    def add_loss_metrics(self, metrics: dict[str, torch.Tensor], weight: float) -> None:
        for name, value in metrics.items():
            if name.endswith("_max"):
                self.maxima[name] = max(self.maxima.get(name, -float("inf")), float(value))
            else:
                self.add_scalar(name, float(value) * weight, weight)

    def add_quadrants(self, fractions: dict[str, torch.Tensor], weight: float) -> None:
        for name, value in fractions.items():
            self.add_scalar(name, float(value) * weight, weight)

    def add_update(self, loss: float, grad_norm: float, finite: bool) -> None:
        self.add_scalar("loss", loss if finite else 0.0, 1.0 if finite else 0.0)
        self.add_scalar("grad_norm", grad_norm if finite else 0.0, 1.0 if finite else 0.0)
        self.totals["skipped_updates"] += 0.0 if finite else 1.0
        self.maxima["grad_norm_max"] = max(self.maxima.get("grad_norm_max", 0.0), grad_norm if finite else 0.0)

    def add_timing(self, update_tokens: int, seconds: float, lr: float) -> None:
        self.totals["update_tokens"] += update_tokens
        self.maxima["update_seconds"] = seconds
        self.maxima["lr"] = lr

    def reduce(self, all_reduce: Callable[[torch.Tensor, str], torch.Tensor]) -> dict[str, float]:
        """Combine ranks: `all_reduce(tensor, op)` with op 'sum' or 'max' (identity on one process)."""
        names = sorted(self.sums)
        summed = all_reduce(torch.tensor([[self.sums[n], self.weights[n]] for n in names] or [[0.0, 0.0]]), "sum")
        out = {n: (s / w if w else 0.0) for n, (s, w) in zip(names, summed.tolist())}
        max_names = sorted(self.maxima)
        if max_names:
            maxima = all_reduce(torch.tensor([self.maxima[n] for n in max_names]), "max")
            out.update(zip(max_names, maxima.tolist()))
        total_names = sorted(self.totals)
        if total_names:
            totals = all_reduce(torch.tensor([self.totals[n] for n in total_names]), "sum")
            out.update(zip(total_names, totals.tolist()))
        # Derived figures: reward spread and throughputs.
        if "reward_sq" in out:
            out["reward_std"] = max(out.pop("reward_sq") - out["reward_mean"] ** 2, 0.0) ** 0.5
        if out.get("rollout_seconds"):
            out["rollout_tokens_per_s"] = out["rollout_tokens"] / out["rollout_seconds"]
        if out.get("update_seconds"):
            out["update_tokens_per_s"] = out["update_tokens"] / out["update_seconds"]
        return out
