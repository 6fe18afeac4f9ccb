"""DAPO: PPO's clipped surrogate with "clip-higher" and token-level reduction.

Paper: DAPO, Yu et al. 2025, arXiv 2503.14476.

Objective, per token (r = pi_theta / pi_old, A the advantage), the same clip as GRPO:

    loss = max(-A r, -A clip(r, 1 - eps_low, 1 + eps_high)),   eps_high > eps_low

"Clip-higher" decouples the two widths: a wider upper bound lets the probability of a
low-probability token with positive advantage grow further before its gradient is cut, which the
paper finds keeps entropy from collapsing. The reduction is `token_mean` over the whole batch, so
every token weighs the same whatever the length of its response. DAPO's other two ingredients,
dynamic sampling (drop groups whose rewards are all equal) and overlong reward shaping, act on
rewards before the loss: see advantages.py.

Hyper-parameters:
    eps_low       lower clip width (0.2); the ratio of an A < 0 token may fall to 1 - eps_low.
    eps_high      upper clip width (0.28); the ratio of an A > 0 token may rise to 1 + eps_high.
    clip_ratio_c  dual-clip bound c > 1 for A < 0 tokens (min(loss, -A c)), None (default) = off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .batch import LossOutput, PolicyBatch
from .clipping import TokenClipParams, clipped_surrogate
from .loss_registry import register_loss


@register_loss("dapo")
@dataclass(frozen=True)
class DAPOLoss(TokenClipParams):
    eps_high: float = 0.28  # clip-higher

    default_agg: ClassVar[str] = "token_mean"

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        return clipped_surrogate(batch, self.eps_low, self.eps_high, self.clip_ratio_c)
