"""GPPO: gradient-preserving clipping, CE-GPPO with both clipped sides at full weight.

Paper: Klear-Reasoner (Gradient-Preserving clipping Policy Optimization), Su et al. 2025,
arXiv 2508.07629; CE-GPPO (arXiv 2509.20712) generalises it with the weights beta1, beta2.

Objective, per token (r = pi_theta / pi_old, A the advantage, sg = stop-gradient):

    A < 0 and r < 1 - eps_low:   loss = -(1 - eps_low)  (r / sg(r)) A
    A > 0 and r > 1 + eps_high:  loss = -(1 + eps_high) (r / sg(r)) A
    otherwise:                   loss = -r A;   then, for A < 0, loss = min(loss, -A c)

The loss values are PPO's, but a clipped token still receives the gradient
-(1 -+ eps) A grad(log pi) instead of zero, so tokens outside the trust region keep learning
with a bounded step. Identical to `ce_gppo` with beta1 = beta2 = 1.

Hyper-parameters:
    eps_low, eps_high  the clip range (0.2 / 0.2).
    clip_ratio_c       dual-clip bound c > 1 for A < 0 (10), or None to turn it off.
Default reduction `token_mean`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .batch import LossOutput, PolicyBatch
from .ce_gppo import gradient_preserving_loss
from .clipping import TokenClipParams
from .loss_registry import register_loss


@register_loss("gppo")
@dataclass(frozen=True)
class GPPOLoss(TokenClipParams):
    clip_ratio_c: float | None = 10.0

    default_agg: ClassVar[str] = "token_mean"

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        # beta1 = beta2 = 1: both clipped sides keep the full (1 -+ eps) A gradient.
        return gradient_preserving_loss(batch, self.eps_low, self.eps_high, 1.0, 1.0, self.clip_ratio_c)
