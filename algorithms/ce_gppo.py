"""CE-GPPO: PPO whose clipped tokens keep a bounded, scaled gradient, to steer entropy.

Paper: CE-GPPO: Controlling Entropy via Gradient-Preserving Clipping Policy Optimization,
Su et al. 2025, arXiv 2509.20712.

Objective, per token (r = pi_theta / pi_old, A the advantage, sg = stop-gradient):

    A < 0 and r < 1 - eps_low   (NA&LP):  loss = -beta1 (1 - eps_low)  (r / sg(r)) A
    A > 0 and r > 1 + eps_high  (PA&LP):  loss = -beta2 (1 + eps_high) (r / sg(r)) A
    otherwise (inside the clip range):     loss = -r A
    then, for A < 0, the dual clip:        loss = min(loss, -A c)

r / sg(r) is 1 in the forward pass, so a clipped token's value is beta times PPO's clipped value;
its gradient is grad(log pi), so a clipped token's gradient is -beta (1 -+ eps) A grad(log pi):
bounded, and non-zero for beta > 0, where PPO gives it zero. The tokens that leave the clip
range are mostly low-probability ones (their ratio moves fastest), and by the paper's analysis
(entropy change ~ -Cov(log pi, A), see quadrants.py) pushing a low-probability token down
(NA&LP) lowers entropy while pushing one up (PA&LP) raises it. beta1 and beta2 therefore
trade exploitation against exploration:

    beta1  scale of the NA&LP gradient, >= 0; larger -> faster entropy decrease (paper: 0.5 for
           1.5B, 0.75 for 7B models).
    beta2  scale of the PA&LP gradient, >= 0; larger -> entropy kept higher (paper: 1).
    eps_low, eps_high  the clip range, as in PPO (0.2 / 0.2).
    clip_ratio_c       dual-clip bound c > 1 for A < 0 (10), or None to turn it off.

beta1 = beta2 = 0 gives exactly PPO/GRPO's gradient; beta1 = beta2 = 1 is GPPO (gppo.py).
Default reduction `token_mean`, as in the paper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from .batch import LossOutput, PolicyBatch
from .clipping import TokenClipParams, clip_metrics, dual_clip, importance_ratio
from .loss_registry import check_nonnegative, register_loss


def gradient_preserving_loss(
    batch: PolicyBatch,
    eps_low: float,
    eps_high: float,
    beta1: float,
    beta2: float,
    clip_ratio_c: float | None,
) -> LossOutput:
    """The CE-GPPO per-token loss and clip metrics (shared by `ce_gppo` and `gppo`)."""
    mask, adv = batch.token_mask, batch.token_advantages  # [B, T], [B, T]
    log_ratio, ratio = importance_ratio(batch.logp, batch.old_logp, mask)  # [B, T]
    with torch.no_grad():  # a per-token constant for autograd
        na_lp = (adv < 0) & (ratio < 1.0 - eps_low)  # [B, T]  pushed below the range: the beta1 side
        pa_lp = (adv > 0) & (ratio > 1.0 + eps_high)  # [B, T]  pushed above the range: the beta2 side
        # r * sg(beta (1 -+ eps) / r) = beta (1 -+ eps) r / sg(r): value beta (1 -+ eps), gradient
        # d/dlogp = beta (1 -+ eps) (as d r / d logp = r). Inside the range the weight is 1.
        weight = torch.where(
            na_lp,
            beta1 * (1.0 - eps_low) / ratio,
            torch.where(pa_lp, beta2 * (1.0 + eps_high) / ratio, 1.0),
        )  # [B, T]
    # inside: loss -A r, d loss / d logp = -r A; clipped: -beta (1 -+ eps) A, whatever r is now
    loss = -adv * (ratio * weight)  # [B, T]
    dual = None
    if clip_ratio_c is not None:
        loss, dual = dual_clip(loss, adv, clip_ratio_c)  # [B, T]
    metrics = clip_metrics(log_ratio, ratio, adv, mask, eps_low, eps_high, high=pa_lp, low=na_lp, dual=dual)
    return LossOutput(per_token=loss.masked_fill(~mask, 0.0), metrics=metrics)


@register_loss("ce_gppo")
@dataclass(frozen=True)
class CEGPPOLoss(TokenClipParams):
    clip_ratio_c: float | None = 10.0
    beta1: float = 0.5
    beta2: float = 1.0

    default_agg: ClassVar[str] = "token_mean"
    schedulable: ClassVar[tuple[str, ...]] = ("beta1", "beta2")  # a BetaSchedule may move them

    def __post_init__(self) -> None:
        super().__post_init__()  # eps_low, eps_high, clip_ratio_c
        check_nonnegative("beta1", self.beta1)
        check_nonnegative("beta2", self.beta2)

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        return gradient_preserving_loss(batch, self.eps_low, self.eps_high, self.beta1, self.beta2, self.clip_ratio_c)
