"""CISPO: clipped importance-sampling weights, every token keeps its gradient.

Paper: MiniMax-M1, MiniMax 2025, arXiv 2506.13585.

Objective, per token (r = pi_theta / pi_old, A the advantage, sg = stop-gradient):

    loss = -sg(clip(r, 1 - eps_low, 1 + eps_high)) A log pi_theta

The gradient of a token is -w A grad(log pi_theta) with the truncated weight w = clip(r): PPO
clips the *objective* and so drops tokens outside the trust region (often the rare "fork" tokens
of a reasoning chain), whereas CISPO clips only the importance weight, so those tokens still
learn, with a bounded step. Forward values are -w A logp (not a surrogate value near -A); only
their gradient matters.

Hyper-parameters and the large-eps convention:
    eps_low   lower truncation width, in (0, inf). Values >= 1 put the lower bound 1 - eps_low at
              or below 0, i.e. no lower truncation; the paper trains this way (eps_low set large,
              only eps_high tuned).
    eps_high  upper truncation width, in (0, inf): weights above 1 + eps_high are cut to it.
              Unlike PPO's eps it may be >= 1 (e.g. eps_high = 4 caps weights at 5).
Defaults 0.2 / 0.2 (the project's shared baseline); reduction `token_mean`, as in the paper.

Metrics: clip_frac counts the tokens whose weight was truncated on either side, whatever the
sign of A; clip_frac_high / clip_frac_low keep the shared definitions (A > 0, r > 1 + eps_high /
A < 0, r < 1 - eps_low) so they compare across losses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .batch import LossOutput, PolicyBatch
from .clipping import clip_metrics, importance_ratio
from .loss_registry import check_positive, register_loss


@register_loss("cispo")
@dataclass(frozen=True)
class CISPOLoss:
    eps_low: float = 0.2
    eps_high: float = 0.2

    default_agg: ClassVar[str] = "token_mean"

    def __post_init__(self) -> None:
        check_positive("eps_low", self.eps_low)
        check_positive("eps_high", self.eps_high)

    @property
    def clip_bounds(self) -> tuple[float, float]:
        return self.eps_low, self.eps_high

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        mask, adv = batch.token_mask, batch.token_advantages  # [B, T], [B, T]
        log_ratio, ratio = importance_ratio(batch.logp, batch.old_logp, mask)  # [B, T]
        lower, upper = 1.0 - self.eps_low, 1.0 + self.eps_high
        weight = ratio.detach().clamp(lower, upper)  # [B, T]  sg(clip(r)): a constant per token
        logp = torch.where(mask, batch.logp, 0.0)  # [B, T]  padding may hold -inf
        loss = -weight * adv * logp  # [B, T]  d loss / d logp = -w A
        truncated = (ratio > upper) | (ratio < lower)  # [B, T]
        metrics = clip_metrics(log_ratio, ratio, adv, mask, self.eps_low, self.eps_high, clipped=truncated)
        return LossOutput(per_token=loss.masked_fill(~mask, 0.0), metrics=metrics)
