"""GMPO: the geometric mean of the token ratios of a response, clipped in log space.

Paper: Geometric-Mean Policy Optimization, Zhao et al. 2025, arXiv 2507.20673 (verl's `geo_mean`
policy loss).

GRPO averages token ratios arithmetically, so one token whose ratio explodes moves the whole
objective; the geometric mean is far less sensitive to such outliers, which lets GMPO use a wider
clip range and keeps the update (and the entropy) steadier. Per response i with counted tokens t,
sequence advantage A_i = mean_t A_t and s = sign(A_t):

    l_t  = s min(s log r_t, s clip(log r_t, -eps_low, eps_high))     (token-wise clip in log space)
    L_i  = -A_i exp(mean_t l_t)            = -A_i (prod_t r_t')^(1 / |y_i|)

For A > 0 a log-ratio above eps_high is held at eps_high (that token stops pushing up), for A < 0
one below -eps_low is held at -eps_low: PPO's pessimistic clip, per token, before the mean. The
clip range in ratio terms is [e^-eps_low, e^eps_high] (the paper's (e^-0.4, e^0.4)).

Per-token form for `aggregate`: every counted token of response i carries L_i, so the default
`seq_mean_token_mean` gives mean_i L_i (verl averages over responses, whatever its aggregation
mode) and the gradient of that mean: d L_i / d logp_t = -A_i exp(mean l) / |y_i| on unclipped
tokens, 0 on clipped ones.

Hyper-parameters:
    eps_low, eps_high  log-space clip widths (0.4 / 0.4, the paper's), each in (0, 1).
Metrics: clip_frac_high (A > 0, log r > eps_high), clip_frac_low (A < 0, log r < -eps_low), ppo_kl,
ratio_mean / ratio_max of the token ratios, and `seq_ratio_mean`, the mean of exp(mean_t l_t).
`clip_bounds` gives the trainer the same range as ratio widths (1 - e^-eps_low, e^eps_high - 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import torch

from .batch import LossOutput, PolicyBatch
from .clipping import clip_metrics, importance_ratio
from .loss_registry import check_eps, register_loss


@register_loss("geo_mean")
@dataclass(frozen=True)
class GeoMeanLoss:
    eps_low: float = 0.4
    eps_high: float = 0.4

    default_agg: ClassVar[str] = "seq_mean_token_mean"

    def __post_init__(self) -> None:
        check_eps("eps_low", self.eps_low)
        check_eps("eps_high", self.eps_high)

    @property
    def clip_bounds(self) -> tuple[float, float]:
        """The log-space range as ratio widths: r in [1 - eps_low', 1 + eps_high']."""
        return 1.0 - math.exp(-self.eps_low), math.exp(self.eps_high) - 1.0

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        mask, adv = batch.token_mask, batch.token_advantages  # [B, T], [B, T]
        log_ratio, ratio = importance_ratio(batch.logp, batch.old_logp, mask)  # [B, T]
        sign = torch.sign(adv)  # [B, T]
        clamped = log_ratio.clamp(-self.eps_low, self.eps_high)  # [B, T]
        kept = sign * torch.minimum(sign * log_ratio, sign * clamped)  # [B, T]  l_t
        lengths = mask.sum(dim=-1).clamp(min=1)  # [B]
        seq_ratio = torch.exp(torch.where(mask, kept, 0.0).sum(dim=-1) / lengths)  # [B]
        seq_adv = torch.where(mask, adv, 0.0).sum(dim=-1) / lengths  # [B]  A_i
        seq_loss = -seq_adv * seq_ratio  # [B]  L_i
        loss = seq_loss.unsqueeze(-1).expand_as(log_ratio)  # [B, T]  L_i on each of its tokens
        high = (adv > 0) & (log_ratio > self.eps_high)  # [B, T]
        low = (adv < 0) & (log_ratio < -self.eps_low)  # [B, T]
        metrics = clip_metrics(log_ratio, ratio, adv, mask, self.eps_low, self.eps_high, high=high, low=low)
        has_tokens = mask.any(dim=-1)  # [B]
        metrics["seq_ratio_mean"] = (seq_ratio.detach() * has_tokens).sum() / has_tokens.sum().clamp(min=1)
        return LossOutput(per_token=loss.masked_fill(~mask, 0.0), metrics=metrics)
