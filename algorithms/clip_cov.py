"""Clip-Cov: PPO's clipped surrogate with a few high-covariance tokens taken out of the gradient.

Paper: The Entropy Mechanism of Reinforcement Learning for Reasoning Language Models, Cui et al.
2025, arXiv 2505.22617 (section 4; verl's `clip_cov` policy loss).

The paper shows that under a softmax policy the entropy change of a step is about
-Cov(log pi(y_t), A_t) over the batch (see quadrants.py): tokens that are both likely and
rewarded (or unlikely and punished) drive the collapse. Clip-Cov stops a small random share of
exactly those tokens from learning. Per token, with centring over the counted tokens of the batch
the loss is given (a micro-batch in training, as in verl):

    cov_t = (A_t - mean A) (log pi_theta(y_t) - mean log pi_theta)          (no gradient)
    candidates  = counted tokens with cov_lb < cov_t < cov_ub that PPO's clip did not already cut
                  (PPO cut them where -A clip(r) > -A r)
    selected    = min(n_clip, #candidates) candidates drawn uniformly without replacement,
                  n_clip = max(floor(clip_cov_ratio * #counted tokens), 1)
    loss_t = 0                                              if t is selected (value and gradient)
             max(-A r, -A clip(r, 1 - eps_low, 1 + eps_high))  otherwise (PPO, no dual clip)

The draw uses torch's default CPU generator (the trainer seeds it per step and rank, so a run and
its resume draw alike). Like verl, a selected token's value is zeroed, not only its gradient.

Hyper-parameters (defaults from the paper and verl):
    clip_cov_ratio  share of counted tokens taken out of the gradient (2e-4), in (0, 1].
    clip_cov_lb     lower covariance bound of a candidate (1.0).
    clip_cov_ub     upper covariance bound of a candidate (5.0), > clip_cov_lb.
    eps_low, eps_high  PPO's clip widths, each > 0 (1.0 / 1.0: the paper's recipes set verl's
                       clip_ratio_low = clip_ratio_high = 1, i.e. the range [0, 2], so that the
                       covariance selection, not the ratio clip, does the work; verl's defaults
                       are 0.2 / 0.2).
Metrics: PPO's clip metrics plus `cov_clip_frac`, the share of counted tokens selected (what verl
logs as pg_clipfrac for this loss). Centring and budget are per call, so in training the selection
depends on the micro-batch size, as in verl (with the default share, one token per micro-batch
until a micro-batch holds 5000 tokens).
Default reduction `token_mean`, as in the paper's runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch
from torch import Tensor

from .aggregation import masked_mean
from .batch import LossOutput, PolicyBatch
from .clipping import clip_metrics, importance_ratio
from .loss_registry import check_positive, register_loss


def token_covariance(logp: Tensor, adv: Tensor, mask: Tensor) -> Tensor:
    """(A_t - mean A)(logp_t - mean logp) per token, means over the counted tokens; 0 elsewhere.

    The summand of Cov(log pi, A): positive where a likely token is rewarded or an unlikely one
    punished. Detached: it only selects tokens."""
    logp, adv = logp.detach(), adv.detach()
    centred_adv = adv - masked_mean(adv, mask)  # [B, T]
    centred_logp = torch.where(mask, logp, 0.0) - masked_mean(logp, mask)  # [B, T]
    return torch.where(mask, centred_adv * centred_logp, 0.0)  # [B, T]


def covariance_budget(ratio: float, mask: Tensor) -> int:
    """Tokens a covariance method acts on: max(floor(ratio x counted tokens), 1)."""
    return max(int(ratio * int(mask.sum())), 1)


@register_loss("clip_cov")
@dataclass(frozen=True)
class ClipCovLoss:
    clip_cov_ratio: float = 2e-4
    clip_cov_lb: float = 1.0
    clip_cov_ub: float = 5.0
    eps_low: float = 1.0
    eps_high: float = 1.0

    default_agg: ClassVar[str] = "token_mean"

    def __post_init__(self) -> None:
        if not (isinstance(self.clip_cov_ratio, (int, float)) and 0.0 < self.clip_cov_ratio <= 1.0):
            raise ValueError(f"clip_cov_ratio must be in (0, 1], got {self.clip_cov_ratio!r}")
        for name in ("clip_cov_lb", "clip_cov_ub"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{name} must be a number, got {value!r}")
        if not self.clip_cov_lb < self.clip_cov_ub:
            raise ValueError(f"need clip_cov_lb < clip_cov_ub, got {self.clip_cov_lb!r} and {self.clip_cov_ub!r}")
        check_positive("eps_low", self.eps_low)
        check_positive("eps_high", self.eps_high)

    @property
    def clip_bounds(self) -> tuple[float, float]:
        return self.eps_low, self.eps_high

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        mask, adv = batch.token_mask, batch.token_advantages  # [B, T], [B, T]
        log_ratio, ratio = importance_ratio(batch.logp, batch.old_logp, mask)  # [B, T]
        unclipped = -adv * ratio  # [B, T]
        clipped = -adv * ratio.clamp(1.0 - self.eps_low, 1.0 + self.eps_high)  # [B, T]
        loss = torch.maximum(unclipped, clipped)  # [B, T]  PPO's pessimistic surrogate
        with torch.no_grad():
            cov = token_covariance(batch.logp, adv, mask)  # [B, T]
            # not already cut by PPO's clip (there -A clip(r) > -A r), inside the covariance window
            candidate = mask & (clipped <= unclipped) & (cov > self.clip_cov_lb) & (cov < self.clip_cov_ub)  # [B, T]
            where = torch.nonzero(candidate.flatten()).squeeze(-1)  # [n_candidates] flat indices
            budget = covariance_budget(self.clip_cov_ratio, mask)
            if len(where) > budget:  # draw `budget` of them uniformly, without replacement
                where = where[torch.randperm(len(where))[:budget].to(where.device)]
            selected = torch.zeros(candidate.numel(), dtype=torch.bool, device=candidate.device)
            selected[where] = True
            selected = selected.view_as(candidate)  # [B, T]
        loss = loss.masked_fill(selected | ~mask, 0.0)  # [B, T]  value and gradient 0 on the selected tokens
        metrics = clip_metrics(log_ratio, ratio, adv, mask, self.eps_low, self.eps_high)
        metrics["cov_clip_frac"] = masked_mean(selected.float(), mask)
        return LossOutput(per_token=loss, metrics=metrics)
