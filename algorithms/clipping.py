"""Shared pieces of the ratio-based losses: the importance ratio, PPO's clipped surrogate, the
dual clip, the clip diagnostics every clipped loss reports, and `TokenClipParams`, the
hyper-parameters (with their checks) of the losses that clip each token's ratio.

The maths is plain functions, not a base class: each loss file spells out its own objective and
calls only what it needs. Only the parameters are inherited (GRPO, DAPO, GPPO, CE-GPPO).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from .aggregation import masked_mean
from .batch import LossOutput, PolicyBatch
from .loss_registry import check_clip_ratio_c, check_eps

# PPO's default clip widths: the range a loss without a hard token clip (KL-Cov, SAPO) measures
# its clip fractions against, so that "tokens a PPO clip would have cut" compare across losses.
PPO_REFERENCE_EPS = (0.2, 0.2)


@dataclass(frozen=True)
class TokenClipParams:
    """eps_low / eps_high (the clip range [1 - eps_low, 1 + eps_high] of every token's ratio) and
    clip_ratio_c (the dual-clip bound c > 1 for A < 0 tokens, or None), checked when a loss is
    built; `clip_bounds` gives the trainer's clip-side metrics the range. A loss changes a
    default by declaring the field again (DAPO: eps_high 0.28)."""

    eps_low: float = 0.2
    eps_high: float = 0.2
    clip_ratio_c: float | None = None

    def __post_init__(self) -> None:
        check_eps("eps_low", self.eps_low)
        check_eps("eps_high", self.eps_high)
        check_clip_ratio_c(self.clip_ratio_c)

    @property
    def clip_bounds(self) -> tuple[float, float]:
        return self.eps_low, self.eps_high


def importance_ratio(logp: Tensor, old_logp: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
    """(log r, r) with r = pi_theta / pi_old = exp(logp - old_logp), old_logp detached.

    Masked positions are set to log r = 0 (r = 1) *before* the exp, so padding that holds -inf or
    junk can neither overflow nor send NaN into the gradient (torch.where passes exactly 0 back).
    """
    log_ratio = torch.where(mask, logp - old_logp.detach(), 0.0)  # [B, T]
    return log_ratio, torch.exp(log_ratio)  # [B, T], [B, T]


def ppo_clipped_loss(ratio: Tensor, adv: Tensor, eps_low: float, eps_high: float) -> Tensor:
    """PPO's pessimistic surrogate as a loss: max(-A r, -A clip(r, 1 - eps_low, 1 + eps_high)).

    For A > 0 this is -A min(r, 1 + eps_high): above the upper bound the loss is the constant
    -A (1 + eps_high) and the token's gradient is zero. For A < 0 it is -A max(r, 1 - eps_low):
    below the lower bound the gradient is zero. A ratio exactly on a bound keeps its gradient
    (torch.maximum and clamp both pass the full gradient there).
    """
    return torch.maximum(-adv * ratio, -adv * ratio.clamp(1.0 - eps_low, 1.0 + eps_high))  # [B, T]


def dual_clip(loss: Tensor, adv: Tensor, clip_ratio_c: float) -> tuple[Tensor, Tensor]:
    """Dual clip (Ye et al., arXiv 1912.09729): for A < 0 cap the loss at -A c.

    With A < 0 the unclipped term -A r grows without bound as r grows, so one token whose ratio
    exploded could dominate the batch; min(loss, -A c) bounds it and zeroes that token's gradient.
    Returns the capped loss and the boolean mask of capped tokens (strict: on the cap the
    gradient is kept).
    """
    cap = -adv * clip_ratio_c  # [B, T]
    capped = (adv < 0) & (loss > cap)  # [B, T]
    return torch.where(capped, cap, loss), capped


@torch.no_grad()
def clip_metrics(
    log_ratio: Tensor,
    ratio: Tensor,
    adv: Tensor,
    mask: Tensor,
    eps_low: float,
    eps_high: float,
    *,
    high: Tensor | None = None,
    low: Tensor | None = None,
    clipped: Tensor | None = None,
    dual: Tensor | None = None,
) -> dict[str, Tensor]:
    """Detached 0-dim diagnostics over the masked tokens.

    clip_frac_high  A > 0 and r > 1 + eps_high (the positive side of the clip is active)
    clip_frac_low   A < 0 and r < 1 - eps_low
    clip_frac       every token whose clip is active: by default high, low and dual-clipped;
                    a loss that truncates differently (CISPO) passes its own `clipped` mask
    dual_clip_frac  tokens capped by the dual clip (only when `dual` is given)
    ppo_kl          masked mean of old_logp - logp (the k1 estimate of KL(pi_old || pi_theta))
    ratio_mean, ratio_max over the masked tokens (ratio_max is 0 for an empty mask)

    A loss that already computed the `high` / `low` masks may pass them to save the work.
    """
    if high is None:
        high = (adv > 0) & (ratio > 1.0 + eps_high)  # [B, T]
    if low is None:
        low = (adv < 0) & (ratio < 1.0 - eps_low)  # [B, T]
    if clipped is None:
        clipped = high | low if dual is None else high | low | dual  # [B, T]
    metrics = {
        "clip_frac": masked_mean(clipped.float(), mask),
        "clip_frac_high": masked_mean(high.float(), mask),
        "clip_frac_low": masked_mean(low.float(), mask),
        "ppo_kl": masked_mean(-log_ratio, mask),
        "ratio_mean": masked_mean(ratio, mask),
        "ratio_max": torch.where(mask, ratio, 0.0).max() if ratio.numel() else ratio.new_zeros(()),
    }
    if dual is not None:
        metrics["dual_clip_frac"] = masked_mean(dual.float(), mask)
    return {k: v.detach() for k, v in metrics.items()}


def clipped_surrogate(batch: PolicyBatch, eps_low: float, eps_high: float, clip_ratio_c: float | None) -> LossOutput:
    """PPO's clipped per-token loss (plus the optional dual clip) and its metrics (GRPO, DAPO)."""
    mask, adv = batch.token_mask, batch.token_advantages  # [B, T], [B, T]
    log_ratio, ratio = importance_ratio(batch.logp, batch.old_logp, mask)  # [B, T]
    loss = ppo_clipped_loss(ratio, adv, eps_low, eps_high)  # [B, T]
    dual = None
    if clip_ratio_c is not None:
        loss, dual = dual_clip(loss, adv, clip_ratio_c)  # [B, T]
    metrics = clip_metrics(log_ratio, ratio, adv, mask, eps_low, eps_high, dual=dual)
    return LossOutput(per_token=loss.masked_fill(~mask, 0.0), metrics=metrics)
