"""SAPO: a smooth, temperature-controlled gate on the ratio instead of a hard clip.

Paper: Soft Adaptive Policy Optimization, Gao et al. 2025 (Qwen team), arXiv 2511.20347 (verl's
and TRL's `sapo`).

PPO's clip cuts a token's gradient to zero the moment its ratio leaves [1 - eps, 1 + eps]; SAPO
replaces the surrogate r A by a sigmoid gate of the ratio whose gradient fades smoothly as the
ratio moves away from 1. Per token, with sigma the logistic function:

    f_tau(r) = sigma(tau (r - 1)) 4 / tau
    loss_t   = -f_tau(r_t) A_t,     tau = tau_pos if A_t > 0 else tau_neg

At r = 1 the gate's slope is 4 sigma(0)(1 - sigma(0)) = 1, so on-policy SAPO is the plain policy
gradient; off-policy the token's gradient is -A 4 sigma(1 - sigma) r (with s = tau (r - 1)),
which decays like e^-|s|: a larger tau shrinks the trust region. Negative-advantage tokens get the
larger temperature by default: the paper finds their off-policy updates the less stable ones.
The value at r = 1 is -2 A / tau (a constant per token, no effect on the gradient). As in verl,
log r is clamped to [-20, 20] before the exp.

Hyper-parameters (the paper's and verl's defaults):
    tau_pos  gate temperature of tokens with A > 0 (1.0), > 0.
    tau_neg  gate temperature of tokens with A <= 0 (1.05), > 0.
Metrics: `gate_weight_mean` (the mean of each token's gradient weight d f / d r, 1 on-policy),
ppo_kl, ratio_mean / ratio_max, and clip_frac / clip_frac_high / clip_frac_low measured against
PPO's default range [0.8, 1.2] (tokens a PPO clip would have cut; SAPO cuts none).
Default reduction `seq_mean_token_mean`, which verl's SAPO always uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .aggregation import masked_mean
from .batch import LossOutput, PolicyBatch
from .clipping import PPO_REFERENCE_EPS, clip_metrics
from .loss_registry import check_positive, register_loss

LOG_RATIO_LIMIT = 20.0  # |log r| beyond this is clamped (exp(20) ~ 5e8)


@register_loss("sapo")
@dataclass(frozen=True)
class SAPOLoss:
    tau_pos: float = 1.0
    tau_neg: float = 1.05

    default_agg: ClassVar[str] = "seq_mean_token_mean"
    # No `clip_bounds`: the gate is smooth, no token's ratio is clipped.

    def __post_init__(self) -> None:
        check_positive("tau_pos", self.tau_pos)
        check_positive("tau_neg", self.tau_neg)

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        mask, adv = batch.token_mask, batch.token_advantages  # [B, T], [B, T]
        log_ratio = torch.where(mask, batch.logp - batch.old_logp.detach(), 0.0)  # [B, T]
        log_ratio = log_ratio.clamp(-LOG_RATIO_LIMIT, LOG_RATIO_LIMIT)  # [B, T]
        ratio = torch.exp(log_ratio)  # [B, T]
        tau = torch.where(adv > 0, self.tau_pos, self.tau_neg)  # [B, T]
        gate = torch.sigmoid(tau * (ratio - 1.0))  # [B, T]
        loss = -(gate * 4.0 / tau) * adv  # [B, T]  d loss / d r = -4 gate (1 - gate) A
        eps_low, eps_high = PPO_REFERENCE_EPS
        metrics = clip_metrics(log_ratio, ratio, adv, mask, eps_low, eps_high)
        metrics["gate_weight_mean"] = masked_mean((4.0 * gate * (1.0 - gate)).detach(), mask)
        return LossOutput(per_token=loss.masked_fill(~mask, 0.0), metrics=metrics)
