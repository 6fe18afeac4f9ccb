"""ERC, Entropy Ratio Clipping: PPO-style losses that give no gradient to tokens whose entropy moved too far.

Paper: Entropy Ratio Clipping, arXiv 2512.05591 (the CE-GPPO authors' follow-up). Official code:
github.com/Kwai-Klear/ERC at commit f1885c534f8d0dde9764ecbb6a9f259b0dd785cf,
verl/trainer/ppo/core_algos.py, `compute_policy_loss_gppo_erc` and `compute_policy_loss_grpo_erc`.

Per token, with H the entropy of the current policy's next-token distribution (whole vocabulary, at
the rollout temperature) and H_old the old policy's, from the trainer's no-grad pass at the step's
start:

    rho  = (H + 1e-8) / (H_old + 1e-8)                      the entropy ratio
    band = entropy_mask_low < rho < entropy_mask_high       (strict, as the official code)
    loss = base loss            on tokens inside the band
         = sg(base loss)        outside it: the same value, no gradient

A token outside the band still counts in the aggregation's denominator (token_mean divides by every
response token), exactly as `torch.where(band, l, l.detach())` followed by verl's agg_loss does.
The base loss is

    grpo_erc   PPO's clipped surrogate with dual clip:  max(-A r, -A clip(r, 1-eps_low, 1+eps_high)),
               for A < 0 then min(., -A c)                          (algorithms.clipping)
    gppo_erc   GPPO: CE-GPPO with beta1 = beta2 = 1, then the dual clip  (algorithms.ce_gppo)

so with the band open (entropy_mask_low = 0, entropy_mask_high = inf) gppo_erc is exactly gppo
(= ce_gppo with beta1 = beta2 = 1) and grpo_erc is PPO with the dual clip.

Defaults follow the four released recipes (recipe/dapo/*_erc_1_05.sh in the same commit), which
produced the paper's numbers: band 0.95 / 1.05, dual clip c = 10, clip 0.2 / 0.28 for grpo_erc and
0.2 / 0.2 for gppo_erc, token_mean; the recipes also keep verl's NLL term on the rewarded responses
at 0.1 (`actor.postive_loss_coeff`, here algo.positive_nll_coef, an objective term and not part of
the loss). The code's config defaults (verl/trainer/config/actor/actor.yaml) differ: band
0.8 / 1.2, clip 0.2 / 0.2 and dual clip c = 3; pass those to get the code's behaviour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import torch
from torch import Tensor

from .batch import LossOutput, PolicyBatch
from .ce_gppo import gradient_preserving_loss
from .clipping import TokenClipParams, clipped_surrogate
from .loss_registry import register_loss

ENTROPY_RATIO_EPS = 1e-8  # the official code's guard against a zero entropy


class _GradientGate(torch.autograd.Function):
    """Identity in the forward pass; the backward pass lets the gradient through only where `gate` is True.

    The same as torch.where(gate, x, x.detach()) at the cost of one multiplication in the backward pass
    (no forward work at all), which keeps ERC within a few percent of its base loss."""

    @staticmethod
    def forward(ctx, x: Tensor, gate: Tensor) -> Tensor:
        ctx.save_for_backward(gate)
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor, None]:
        (gate,) = ctx.saved_tensors
        return grad * gate, None


def entropy_ratio_band(entropy: Tensor, old_entropy: Tensor, low: float, high: float) -> Tensor:
    """[B, T] bool: tokens whose entropy ratio (H + 1e-8) / (H_old + 1e-8) lies strictly in (low, high)."""
    with torch.no_grad():  # in place where possible: this runs on every update
        ratio = entropy.detach() + ENTROPY_RATIO_EPS  # [B, T]
        ratio.div_(old_entropy.detach() + ENTROPY_RATIO_EPS)
        return (ratio > low).logical_and_(ratio < high)


def entropy_ratio_clip(batch: PolicyBatch, base: LossOutput, low: float, high: float, name: str) -> LossOutput:
    """`base`'s per-token loss with the gradient kept only inside the entropy-ratio band.

    Adds `entropy_mask_frac`: the share of response tokens outside the band (no gradient)."""
    if batch.entropy is None or batch.old_entropy is None:
        raise ValueError(f"{name} needs batch.entropy and batch.old_entropy: per-token entropies [B, T]")
    mask = batch.token_mask  # [B, T]
    # in the band and a response token (padding has no gradient anyway, so gating it too changes nothing)
    band = entropy_ratio_band(batch.entropy, batch.old_entropy, low, high).logical_and_(mask)  # [B, T]
    per_token = _GradientGate.apply(base.per_token, band)  # [B, T] value kept, gradient only inside the band
    outside = 1.0 - band.sum() / mask.sum().clamp(min=1)  # share of response tokens out of the band
    return LossOutput(per_token=per_token, metrics={**base.metrics, "entropy_mask_frac": outside})


@dataclass(frozen=True)
class EntropyBandParams(TokenClipParams):
    """The entropy-ratio band (entropy_mask_low, entropy_mask_high), 0 <= low < 1 < high <= inf."""

    clip_ratio_c: float | None = 10.0
    entropy_mask_low: float = 0.95
    entropy_mask_high: float = 1.05

    default_agg: ClassVar[str] = "token_mean"
    needs_old_entropy: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        low, high = self.entropy_mask_low, self.entropy_mask_high
        for key, value in (("entropy_mask_low", low), ("entropy_mask_high", high)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
                raise ValueError(f"{key} must be a number, got {value!r}")
        if not 0.0 <= low < 1.0:
            raise ValueError(f"entropy_mask_low must be in [0, 1), got {low!r}")
        if not high > 1.0:
            raise ValueError(f"entropy_mask_high must be in (1, inf], got {high!r}")


@register_loss("grpo_erc")
@dataclass(frozen=True)
class GRPOERCLoss(EntropyBandParams):
    eps_high: float = 0.28

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        base = clipped_surrogate(batch, self.eps_low, self.eps_high, self.clip_ratio_c)
        return entropy_ratio_clip(batch, base, self.entropy_mask_low, self.entropy_mask_high, self.name)


@register_loss("gppo_erc")
@dataclass(frozen=True)
class GPPOERCLoss(EntropyBandParams):
    def __call__(self, batch: PolicyBatch) -> LossOutput:
        base = gradient_preserving_loss(batch, self.eps_low, self.eps_high, 1.0, 1.0, self.clip_ratio_c)
        return entropy_ratio_clip(batch, base, self.entropy_mask_low, self.entropy_mask_high, self.name)
