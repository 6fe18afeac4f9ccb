"""Importance ratios pi_prox / pi_behav and their figures, shared by the corrections of this folder.

With log-probs l_prox and l_behav of the sampled tokens, the per-token ratio is
rho_t = exp(l_prox_t - l_behav_t): how much more likely the trainer's policy at the step's start
finds the token than the policy that drew it. Importance sampling reweights a token drawn from
pi_behav by rho_t to get an expectation under pi_prox; truncating at C, min(rho_t, C), bounds the
variance at the price of a small bias (Ionides 2008; Espeholt et al. 2018 for RL).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from .correction_registry import check_cap


def behaviour_ratio(proximal_logp: Tensor, behaviour_logp: Tensor, mask: Tensor) -> Tensor:
    """[B, T] detached rho = pi_prox / pi_behav on the tokens that count, 1 elsewhere (padding never overflows)."""
    counted = mask.bool()  # [B, T]
    return torch.exp(torch.where(counted, proximal_logp - behaviour_logp, 0.0)).detach()  # [B, T]


def truncated_weights(proximal_logp: Tensor, behaviour_logp: Tensor, mask: Tensor, cap: float) -> Tensor:
    """[B, T] detached w = min(rho, C) on the tokens that count, 0 on the others."""
    return behaviour_ratio(proximal_logp, behaviour_logp, mask).clamp(max=cap) * mask  # [B, T]


def token_share(flags: Tensor, mask: Tensor) -> Tensor:
    """0-dim share of the counted tokens where `flags` [B, T] holds."""
    return (flags.float() * mask).sum() / mask.sum().clamp(min=1)


def ratio_figures(ratio: Tensor, mask: Tensor, prefix: str) -> dict[str, Tensor]:
    """{prefix}_mean and {prefix}_max of rho over the counted tokens ({} when none counts)."""
    counted = mask.bool()  # [B, T]
    if not counted.any():
        return {}
    return {f"{prefix}_mean": (ratio * mask).sum() / mask.sum(), f"{prefix}_max": ratio[counted].max()}


def out_of_clip_shares(
    ratio: Tensor, mask: Tensor, advantages: Tensor, clip_bounds: tuple[float, float] | None, prefix: str
) -> dict[str, Tensor]:
    """Shares of the counted tokens that a clip of rho would already cut, by side: {prefix}_out_high
    (A > 0 and rho > 1 + eps_high) and {prefix}_out_low (A < 0 and rho < 1 - eps_low). {} for a loss
    without a token clip (`clip_bounds` None) or when no token counts."""
    if clip_bounds is None or not mask.bool().any():
        return {}
    eps_low, eps_high = clip_bounds
    adv = advantages.unsqueeze(-1) if advantages.dim() == 1 else advantages  # [B, 1] or [B, T]
    high = (adv > 0) & (ratio > 1 + eps_high)  # [B, T]
    low = (adv < 0) & (ratio < 1 - eps_low)  # [B, T]
    return {f"{prefix}_out_high": token_share(high, mask), f"{prefix}_out_low": token_share(low, mask)}


@dataclass(frozen=True)
class TruncatedWeights:
    """The cap C of the per-token weight w = min(pi_prox / pi_behav, C), checked when a correction is
    built, and the weight itself: what `tis` and `decoupled` share (they differ in their figures)."""

    cap: float = 2.0

    def __post_init__(self) -> None:
        check_cap(self.cap)

    def weights(self, proximal_logp: Tensor, behaviour_logp: Tensor, mask: Tensor) -> Tensor:
        return truncated_weights(proximal_logp, behaviour_logp, mask, self.cap)  # [B, T]
