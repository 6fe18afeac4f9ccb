"""The two containers every policy loss speaks: `PolicyBatch` in, `LossOutput` out.

A batch holds per-token log-probabilities of B sampled responses padded to T tokens. Losses never
see a model: the training module computes `logp` (and, for entropy terms, `entropy`) from logits and
hands them over together with the behaviour policy's `old_logp`, the advantages and the mask.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from torch import Tensor


@dataclass(frozen=True)
class PolicyBatch:
    """Per-token inputs of a policy loss.

    `logp` is log pi_theta of the sampled tokens and carries the gradient. `old_logp` is the
    behaviour policy (equal to `logp.detach()` on the first, on-policy pass); losses detach it.
    `advantages` may be per token [B, T] or per sequence [B] (broadcast over T). `mask` is 1 (or
    True) on response tokens that count and 0 on prompt / padding; masked positions may hold
    anything, even -inf, and never reach a loss value or a gradient. `old_entropy` is the entropy
    of the old policy from the trainer's no-grad pass at the step's start (ERC's denominator).
    """

    logp: Tensor  # [B, T]
    old_logp: Tensor  # [B, T]
    advantages: Tensor  # [B, T] or [B]
    mask: Tensor  # [B, T]
    ref_logp: Tensor | None = None  # [B, T], only for KL terms
    entropy: Tensor | None = None  # [B, T], only for entropy terms
    old_entropy: Tensor | None = None  # [B, T] the old policy's entropy (no grad), only for ERC

    def __post_init__(self) -> None:
        shape = self.logp.shape
        if self.logp.dim() != 2:
            raise ValueError(f"logp must be [B, T], got shape {tuple(shape)}")
        for name in ("old_logp", "mask", "ref_logp", "entropy", "old_entropy"):
            value = getattr(self, name)
            if value is not None and value.shape != shape:
                raise ValueError(f"{name} must have logp's shape {tuple(shape)}, got {tuple(value.shape)}")
        if self.advantages.shape not in (shape, shape[:1]):
            raise ValueError(
                f"advantages must be [B, T] = {tuple(shape)} or [B] = {tuple(shape[:1])}, "
                f"got {tuple(self.advantages.shape)}"
            )

    @property
    def token_mask(self) -> Tensor:
        """The mask as booleans."""
        return self.mask.bool()  # [B, T]

    @property
    def token_advantages(self) -> Tensor:
        """Detached advantages broadcast to [B, T] (a [B] tensor is repeated over T)."""
        adv = self.advantages.detach()
        return adv.unsqueeze(-1).expand_as(self.logp) if adv.dim() == 1 else adv  # [B, T]


@dataclass(frozen=True)
class LossOutput:
    """What a loss returns: the per-token quantity to minimise and its diagnostics.

    `per_token` [B, T] holds exactly 0 at masked positions; reduce it with `aggregate`. `metrics`
    maps names to detached 0-dim tensors (nothing is synchronised to the host inside a loss).
    """

    per_token: Tensor  # [B, T]
    metrics: dict[str, Tensor] = field(default_factory=dict)
