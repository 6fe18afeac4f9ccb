"""`tis`: truncated importance sampling for the train/inference mismatch.

Reference: Yao et al. 2025, "Your efficient RL framework secretly brings you off-policy RL
training" (fengyao.notion.site/off-policy-rl). The tokens were drawn by the rollout engine,
pi_behav = pi_engine (its kernels, precision and nucleus), not by the trainer's pi_old = pi_prox,
although both hold the same weights. The loss's ratio pi_theta / pi_prox accounts for the policy
moving during the step; the detached per-token weight

    w_t = min(pi_prox_t / pi_engine_t, C)

moves the expectation from pi_engine back to pi_prox, truncated at C to bound its variance. With
top-p < 1, pi_engine is the renormalised nucleus, so w also carries the nucleus mass.

Metrics (response tokens): mismatch_ratio_mean, mismatch_ratio_max of pi_prox / pi_engine and
mismatch_clip_frac, the share of weights truncated at C.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from torch import Tensor

from .correction_registry import register_correction
from .importance import TruncatedWeights, behaviour_ratio, ratio_figures, token_share


@register_correction("tis")
@dataclass(frozen=True)
class TruncatedIS(TruncatedWeights):
    """`cap` (C, default 2) and `weights` come from TruncatedWeights."""

    old_policy: ClassVar[str] = "proximal"

    def metrics(self, proximal_logp, behaviour_logp, mask, advantages, clip_bounds) -> dict[str, Tensor]:
        ratio = behaviour_ratio(proximal_logp, behaviour_logp, mask)  # [B, T]
        figures = ratio_figures(ratio, mask, "mismatch_ratio")
        return {**figures, "mismatch_clip_frac": token_share(ratio > self.cap, mask)} if figures else {}
