"""`behaviour`: stale rollouts clipped against the policy that generated them.

The loss's ratio is r = pi_theta / pi_behav, its old policy the sampling log-probs recorded with
the rollouts; no weight and no recomputed log-probs (the trainer skips that forward pass). A stale
batch then starts with ratios already away from 1, and the loss's clip cuts what staleness alone
moved: for CE-GPPO those tokens still get its bounded gradient, for GRPO they get none.

Metrics (response tokens of the rows whose pi_prox is known: the first mini-batch, whose forward
before the first update is pi_prox): behaviour_ratio_mean, behaviour_ratio_max of pi_prox / pi_behav,
and for losses with a token clip behaviour_out_high / behaviour_out_low (see decoupled_ppo).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from torch import Tensor

from .correction_registry import register_correction
from .importance import behaviour_ratio, out_of_clip_shares, ratio_figures


@register_correction("behaviour")
@dataclass(frozen=True)
class BehaviourClip:
    old_policy: ClassVar[str] = "behaviour"

    def weights(self, proximal_logp: Tensor, behaviour_logp: Tensor, mask: Tensor) -> None:
        return None

    def metrics(self, proximal_logp, behaviour_logp, mask, advantages, clip_bounds) -> dict[str, Tensor]:
        ratio = behaviour_ratio(proximal_logp, behaviour_logp, mask)  # [B, T]
        figures = ratio_figures(ratio, mask, "behaviour_ratio")
        return {**figures, **out_of_clip_shares(ratio, mask, advantages, clip_bounds, "behaviour")} if figures else {}
