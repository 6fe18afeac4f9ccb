"""`decoupled`: decoupled PPO for stale rollouts (AReaL: Fu et al. 2025, arXiv 2505.24298).

pi_behav generated the batch some versions ago; pi_prox is the trainer's policy at the step's
start. The loss's ratio r = pi_theta / pi_prox is clipped exactly as on fresh data (the trust
region stays centred on the policy being improved), and each token's loss is weighted by

    w_t = min(pi_prox_t / pi_behav_t, C)        (detached)

which moves the expectation from pi_behav back to pi_prox. AReaL drops the tokens whose weight
exceeds its cap; this truncates them instead (the `tis` weight), so no token's gradient is lost.
It costs the trainer one forward pass of the batch for pi_prox, as the synchronous loop.

Metrics (response tokens): behaviour_ratio_mean, behaviour_ratio_max of pi_prox / pi_behav,
behaviour_cap_frac (weights truncated at C), and for losses with a token clip behaviour_out_high /
behaviour_out_low: the tokens a clip against pi_behav would already cut (what staleness alone
moved out of the clip range before any update of the step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from torch import Tensor

from .correction_registry import register_correction
from .importance import TruncatedWeights, behaviour_ratio, out_of_clip_shares, ratio_figures, token_share


@register_correction("decoupled")
@dataclass(frozen=True)
class DecoupledPPO(TruncatedWeights):
    """`cap` (C, default 2) and `weights` come from TruncatedWeights."""

    old_policy: ClassVar[str] = "proximal"

    def metrics(self, proximal_logp, behaviour_logp, mask, advantages, clip_bounds) -> dict[str, Tensor]:
        ratio = behaviour_ratio(proximal_logp, behaviour_logp, mask)  # [B, T]
        figures = ratio_figures(ratio, mask, "behaviour_ratio")
        if not figures:
            return {}
        figures["behaviour_cap_frac"] = token_share(ratio > self.cap, mask)
        return {**figures, **out_of_clip_shares(ratio, mask, advantages, clip_bounds, "behaviour")}
