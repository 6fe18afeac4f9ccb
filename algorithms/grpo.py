"""GRPO: PPO's clipped surrogate with group-relative advantages.

Paper: DeepSeekMath, Shao et al. 2024, arXiv 2402.03300 (clip from PPO, arXiv 1707.06347).

Objective, per token (r = pi_theta / pi_old, A the advantage):

    loss = max(-A r, -A clip(r, 1 - eps_low, 1 + eps_high))

and, with the dual clip on (Ye et al., arXiv 1912.09729), for A < 0: loss = min(loss, -A c).
Outside the trust region the gradient of a token is exactly zero: a positive-advantage token whose
ratio rose above 1 + eps_high, or a negative-advantage token whose ratio fell below 1 - eps_low,
stops learning for the rest of this rollout batch.

Hyper-parameters:
    eps_low       lower clip width; the ratio of an A < 0 token may fall to 1 - eps_low.
    eps_high      upper clip width; the ratio of an A > 0 token may rise to 1 + eps_high.
    clip_ratio_c  dual-clip bound c > 1 for A < 0 tokens, None (default) to turn it off.

Default reduction `seq_mean_token_mean` (mean over tokens of a response, then over responses), as
in the paper. The optional KL-to-reference term of the paper is not part of this loss: see kl.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .batch import LossOutput, PolicyBatch
from .clipping import TokenClipParams, clipped_surrogate
from .loss_registry import register_loss


@register_loss("grpo")
@dataclass(frozen=True)
class GRPOLoss(TokenClipParams):
    default_agg: ClassVar[str] = "seq_mean_token_mean"

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        return clipped_surrogate(batch, self.eps_low, self.eps_high, self.clip_ratio_c)
