"""KL-Cov: an unclipped policy gradient with a KL penalty on the highest-covariance tokens.

Paper: The Entropy Mechanism of Reinforcement Learning for Reasoning Language Models, Cui et al.
2025, arXiv 2505.22617 (section 4; verl's `kl_cov` policy loss).

The companion of Clip-Cov (clip_cov.py): instead of detaching random high-covariance tokens it
holds the top ones near the behaviour policy. Per token, centring over the counted tokens of the
batch the loss is given (a micro-batch in training, as in verl):

    cov_t    = (A_t - mean A) (log pi_theta(y_t) - mean log pi_theta)      (no gradient)
    selected = the k counted tokens of largest cov_t (signed: the collapse-driving ones),
               k = max(floor(kl_cov_ratio * #counted tokens), 1)
    loss_t   = -A r + coef |log r|     if t is selected    (|log pi_theta - log pi_old|, the k1 size)
               -A r                    otherwise           (no ratio clip at all)

Nothing is clipped: the trust region of the selected tokens is the penalty, the rest move
freely. |log r| has gradient sign(log r), 0 on the first on-policy pass.

Hyper-parameters (defaults from verl's config and the paper's smaller-model runs):
    kl_cov_ratio  share of counted tokens that get the penalty (2e-4), in (0, 1].
    coef          weight of the penalty (1.0), >= 0.
Metrics: `kl_cov_frac` (share penalised), `ppo_kl`, `ppo_kl_abs` (mean |log r|, verl's
metric), ratio_mean / ratio_max, and clip_frac / clip_frac_high / clip_frac_low measured against
PPO's default range [0.8, 1.2] (tokens a PPO clip would have cut; KL-Cov cuts none).
Default reduction `token_mean`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .aggregation import masked_mean
from .batch import LossOutput, PolicyBatch
from .clip_cov import covariance_budget, token_covariance
from .clipping import PPO_REFERENCE_EPS, clip_metrics, importance_ratio
from .loss_registry import check_nonnegative, register_loss


@register_loss("kl_cov")
@dataclass(frozen=True)
class KLCovLoss:
    kl_cov_ratio: float = 2e-4
    coef: float = 1.0

    default_agg: ClassVar[str] = "token_mean"
    # No `clip_bounds`: no token's ratio is clipped.

    def __post_init__(self) -> None:
        if not (isinstance(self.kl_cov_ratio, (int, float)) and 0.0 < self.kl_cov_ratio <= 1.0):
            raise ValueError(f"kl_cov_ratio must be in (0, 1], got {self.kl_cov_ratio!r}")
        check_nonnegative("coef", self.coef)

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        mask, adv = batch.token_mask, batch.token_advantages  # [B, T], [B, T]
        log_ratio, ratio = importance_ratio(batch.logp, batch.old_logp, mask)  # [B, T]
        with torch.no_grad():
            cov = token_covariance(batch.logp, adv, mask).masked_fill(~mask, -torch.inf).flatten()  # [B*T]
            k = min(covariance_budget(self.kl_cov_ratio, mask), int(mask.sum()))
            selected = torch.zeros_like(cov, dtype=torch.bool)
            selected[torch.topk(cov, k).indices] = True
            selected = selected.view_as(mask)  # [B, T]
        loss = -adv * ratio  # [B, T]
        loss = torch.where(selected, loss + self.coef * log_ratio.abs(), loss)  # [B, T]
        eps_low, eps_high = PPO_REFERENCE_EPS
        metrics = clip_metrics(log_ratio, ratio, adv, mask, eps_low, eps_high)
        metrics["kl_cov_frac"] = masked_mean(selected.float(), mask)
        metrics["ppo_kl_abs"] = masked_mean(log_ratio.abs().detach(), mask)
        return LossOutput(per_token=loss.masked_fill(~mask, 0.0), metrics=metrics)
