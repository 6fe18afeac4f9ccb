"""Entropy regularisation: any registered loss minus an entropy bonus.

Reference: the entropy bonus of A3C, Mnih et al. 2016, arXiv 1602.01783 (Williams & Peng 1991);
the usual baseline against which CE-GPPO's entropy control is compared.

Objective, per token:

    loss = base_loss - coef * H_t,    H_t = -sum_v pi_theta(v | context_t) log pi_theta(v | context_t)

Minimising -coef * H raises the entropy of every next-token distribution uniformly, whatever the
token's advantage; CE-GPPO instead acts only through the clipped low-probability tokens. Needs
`batch.entropy` [B, T] (with gradient), computed by the training module from the logits.

Hyper-parameters:
    base  name of the wrapped loss (default "grpo"); its parameters are passed through, e.g.
          get_loss("entropy_reg", base="dapo", coef=1e-3, eps_high=0.28).
    coef  entropy coefficient >= 0 (default 1e-3).
The default reduction is the base loss's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import torch

from .aggregation import masked_mean
from .batch import LossOutput, PolicyBatch
from .loss_registry import PolicyLoss, check_nonnegative, get_loss, register_loss


@register_loss("entropy_reg")
@dataclass(frozen=True)
class EntropyRegLoss:
    base: PolicyLoss
    coef: float = 1e-3

    def __post_init__(self) -> None:
        check_nonnegative("coef", self.coef)

    @classmethod
    def from_params(cls, base: str = "grpo", coef: float = 1e-3, **base_params: Any) -> EntropyRegLoss:
        """Build the base loss from its name and the parameters this class does not own."""
        try:
            base_loss = get_loss(base, **base_params)
        except ValueError as err:
            raise ValueError(f"entropy_reg (own parameters: base, coef) with base={base!r}: {err}") from err
        return cls(base=base_loss, coef=coef)

    # Everything but the entropy term belongs to the wrapped loss: its aggregation, its clip range
    # (so the clip-side metrics still apply) and its schedulable coefficients.
    @property
    def default_agg(self) -> str:
        return self.base.default_agg

    @property
    def clip_bounds(self) -> tuple[float, float] | None:
        return self.base.clip_bounds

    @property
    def schedulable(self) -> tuple[str, ...]:
        return self.base.schedulable

    @property
    def needs_old_entropy(self) -> bool:
        return self.base.needs_old_entropy

    def coefficients(self) -> dict[str, float]:
        return self.base.coefficients()

    def with_coefficients(self, **values: float) -> EntropyRegLoss:
        return dataclasses.replace(self, base=self.base.with_coefficients(**values))

    def __call__(self, batch: PolicyBatch) -> LossOutput:
        if batch.entropy is None:
            raise ValueError("entropy_reg needs batch.entropy: per-token entropy [B, T] of pi_theta, with gradient")
        out = self.base(batch)
        mask = batch.token_mask  # [B, T]
        entropy = torch.where(mask, batch.entropy, 0.0)  # [B, T]
        loss = out.per_token - self.coef * entropy  # [B, T]  d loss / d H_t = -coef
        mean_entropy = masked_mean(entropy.detach(), mask)
        return LossOutput(per_token=loss, metrics={**out.metrics, "entropy": mean_entropy})
