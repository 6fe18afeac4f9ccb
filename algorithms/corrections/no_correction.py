"""`none`: fresh rollouts scored by the trainer itself, nothing to correct.

The synchronous loop without the engine's sampling log-probs: the trainer's log-probs of the rows
before the first update are the loss's old policy (every ratio starts at exactly 1) and each
token's loss counts once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from torch import Tensor

from .correction_registry import register_correction


@register_correction("none")
@dataclass(frozen=True)
class NoCorrection:
    old_policy: ClassVar[str] = "proximal"

    def weights(self, proximal_logp: Tensor, behaviour_logp: Tensor, mask: Tensor) -> None:
        return None

    def metrics(self, proximal_logp, behaviour_logp, mask, advantages, clip_bounds) -> dict[str, Tensor]:
        return {}
