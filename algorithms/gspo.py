"""GSPO: clip on the sequence-level importance ratio instead of per-token ratios.

Paper: Group Sequence Policy Optimization, Zheng et al. 2025, arXiv 2507.18071.

Sequence objective (r_t = pi_theta(y_t) / pi_old(y_t), |y_i| the response length):

    s_i  = (pi_theta(y_i) / pi_old(y_i)) ** (1 / |y_i|) = exp(mean_t log r_it)
    loss = max(-A_i s_i, -A_i clip(s_i, 1 - eps_low, 1 + eps_high))

Token form used here ("GSPO-token", which also admits per-token advantages A_it):

    s_it = sg(s_i) exp(logp_t - sg(logp_t))          (value s_i, d s_it / d logp_t = s_i)
    loss_it = max(-A_it s_it, -A_it clip(s_it, 1 - eps_low, 1 + eps_high))

The clip is therefore decided on s_i, for the whole response at once. Reduced with
`seq_mean_token_mean`, the gradient is (1/S) sum_i -A_i s_i (1/|y_i|) sum_t grad logp_it, which is
exactly the gradient of the sequence objective above when A_it = A_i (grad s_i =
s_i (1/|y_i|) sum_t grad logp_it).

Hyper-parameters:
    eps_low, eps_high  clip widths of the sequence ratio. A length-normalised ratio moves far less
                       than token ratios, hence the tiny defaults 3e-4 / 4e-4 from the paper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .batch import LossOutput, PolicyBatch
from .clipping import clip_metrics, importance_ratio, ppo_clipped_loss
from .loss_registry import check_eps, register_loss


@register_loss("gspo")
@dataclass(frozen=True)
class GSPOLoss:
    eps_low: float = 3e-4
    eps_high: float = 4e-4

    default_agg: ClassVar[str] = "seq_mean_token_mean"
    # No `clip_bounds`: the clip is decided per sequence, so no token is clipped on its own side.

    def __post_init__(self) -> None:
        check_eps("eps_low", self.eps_low)
        check_eps("eps_high", self.eps_high)

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        mask, adv = batch.token_mask, batch.token_advantages  # [B, T], [B, T]
        log_ratio, _ = importance_ratio(batch.logp, batch.old_logp, mask)  # [B, T]
        lengths = mask.sum(dim=-1).clamp(min=1)  # [B]
        seq_ratio = torch.exp(log_ratio.detach().sum(dim=-1) / lengths)  # [B]  s_i, detached
        logp = torch.where(mask, batch.logp, 0.0)  # [B, T]  padding may hold -inf
        # value s_i on every token of response i, gradient s_i * grad(logp_t)
        token_ratio = seq_ratio.unsqueeze(-1) * torch.exp(logp - logp.detach())  # [B, T]
        loss = ppo_clipped_loss(token_ratio, adv, self.eps_low, self.eps_high)  # [B, T]
        metrics = clip_metrics(log_ratio, token_ratio.detach(), adv, mask, self.eps_low, self.eps_high)
        return LossOutput(per_token=loss.masked_fill(~mask, 0.0), metrics=metrics)
