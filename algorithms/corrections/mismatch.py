"""`mismatch`: the family of train/inference mismatch corrections, one weight rule per variant.

The tokens were drawn by pi_behav (the rollout engine, vLLM's kernels and precision, or with
rollout.staleness an older copy of the weights) while the loss's old policy is the trainer's
pi_prox. With the per-token log-ratio d_t = log pi_prox_t - log pi_behav_t over the response tokens
of a sequence, rho_t = exp(d_t), and [low, high] the variant's bounds, the detached per-token weight
w_t that multiplies the loss is

    token_truncate     min(rho_t, high)                           truncated IS (as `tis`)
    token_mask         1[low <= rho_t <= high]                    token rejection: out-of-band tokens dropped
    sequence_truncate  min(prod_t rho_t, high)                    sequence-level truncated IS
    sequence_mask      1[low <= prod_t rho_t <= high]             sequence rejection
    geometric_mask     1[low <= exp(mean_t d_t) <= high]          rejection on the per-token geometric mean
    icepop             rho_t 1[low <= rho_t <= high]              IcePop's two-sided token mask, weight kept

The truncate / mask variants and their bounds follow verl's rollout correction (volcengine/verl,
docs/algo/rollout_corr.md and rollout_corr_math.md: `rollout_is` token / sequence truncated at
rollout_is_threshold, `rollout_rs` token / sequence / geometric rejecting outside
[rollout_rs_threshold_lower, rollout_rs_threshold], the lower bound 1 / upper when not given; IS
weights and rejection are separate options there, one variant each here). IcePop is from the Ring-1T
report (arXiv 2510.18855): M(k) = k for k in [alpha, beta], else 0, with alpha 0.5, beta 5.

Default bounds (`low`/`high` None): high 2 for the token and sequence variants (verl's threshold),
1.001 for geometric_mask (verl's geo_rs preset), 5 for icepop; low 1 / high, except icepop's 0.5.
Sequence products are taken in log space (exp(min(sum d, log high))), so they never overflow.

Metrics over the response tokens: mismatch_ratio_mean / _max of rho_t, mismatch_weight_mean /
_max of w_t, and mismatch_masked_frac, the share of tokens whose weight is 0 (the mask variants).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import torch
from torch import Tensor

from .correction_registry import register_correction
from .importance import behaviour_ratio, ratio_figures, token_share

MISMATCH_VARIANTS = (
    "token_truncate",
    "token_mask",
    "sequence_truncate",
    "sequence_mask",
    "geometric_mask",
    "icepop",
)
DEFAULT_HIGH = {"geometric_mask": 1.001, "icepop": 5.0}  # the others: 2.0
DEFAULT_LOW = {"icepop": 0.5}  # the others: 1 / high


def mismatch_bounds(variant: str, low: float | None, high: float | None) -> tuple[float, float]:
    """The (low, high) a variant uses: the given ones, else its defaults (see the module docstring)."""
    high = DEFAULT_HIGH.get(variant, 2.0) if high is None else float(high)
    low = DEFAULT_LOW.get(variant, 1.0 / high) if low is None else float(low)
    return low, high


def _sequence_log_ratio(log_ratio: Tensor, mask: Tensor, geometric: bool) -> Tensor:
    """[B, 1] sum over the response tokens of d_t, or their mean (geometric)."""
    total = (log_ratio * mask).sum(-1, keepdim=True)  # [B, 1]
    return total / mask.sum(-1, keepdim=True).clamp(min=1) if geometric else total


@register_correction("mismatch")
@dataclass(frozen=True)
class MismatchCorrection:
    variant: str = "token_truncate"
    low: float | None = None
    high: float | None = None

    old_policy: ClassVar[str] = "proximal"

    def __post_init__(self) -> None:
        if self.variant not in MISMATCH_VARIANTS:
            raise ValueError(f"mismatch variant must be one of {', '.join(MISMATCH_VARIANTS)}, got {self.variant!r}")
        for key in ("low", "high"):
            value = getattr(self, key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise ValueError(f"mismatch {key} must be a positive number or None, got {value!r}")
        low, high = self.bounds
        if not low <= 1.0 <= high:
            raise ValueError(f"mismatch bounds must satisfy low <= 1 <= high, got low={low:g}, high={high:g}")

    @property
    def bounds(self) -> tuple[float, float]:
        return mismatch_bounds(self.variant, self.low, self.high)

    def weights(self, proximal_logp: Tensor, behaviour_logp: Tensor, mask: Tensor) -> Tensor:
        """[B, T] detached weights w_t (0 on padding)."""
        low, high = self.bounds
        counted = mask.bool()  # [B, T]
        log_ratio = torch.where(counted, proximal_logp - behaviour_logp, 0.0).detach()  # [B, T] d_t
        variant = self.variant
        if variant.startswith("token") or variant == "icepop":
            rho = torch.exp(log_ratio)  # [B, T]
            if variant == "token_truncate":
                weight = rho.clamp(max=high)
            else:
                inside = ((rho >= low) & (rho <= high)).to(rho.dtype)  # [B, T]
                weight = inside * rho if variant == "icepop" else inside
        else:
            seq = _sequence_log_ratio(log_ratio, mask, geometric=variant == "geometric_mask")  # [B, 1]
            if variant == "sequence_truncate":
                weight = torch.exp(seq.clamp(max=math.log(high))).expand_as(log_ratio)  # [B, T]
            else:
                inside = (seq >= math.log(low)) & (seq <= math.log(high))  # [B, 1]
                weight = inside.to(log_ratio.dtype).expand_as(log_ratio)  # [B, T]
        return weight * mask  # [B, T]

    def metrics(self, proximal_logp, behaviour_logp, mask, advantages, clip_bounds) -> dict[str, Tensor]:
        ratio = behaviour_ratio(proximal_logp, behaviour_logp, mask)  # [B, T]
        figures = ratio_figures(ratio, mask, "mismatch_ratio")
        if not figures:
            return {}
        weight = self.weights(proximal_logp, behaviour_logp, mask)  # [B, T]
        figures.update(ratio_figures(weight, mask, "mismatch_weight"))
        figures["mismatch_masked_frac"] = token_share(weight == 0, mask)
        return figures
