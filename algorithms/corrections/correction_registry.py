"""Name -> off-policy correction registry, `get_correction`, and the interface every correction has.

A correction is a small frozen dataclass whose fields are its parameters (a truncation cap),
registered with `@register_correction("name")`. It declares `old_policy`, the log-probs the
loss's ratio is taken against:

    "proximal"   the trainer's own log-probs of the rows at the step's start (pi_prox): the trainer
                 scores every row before the first update (`needs_proximal` is True)
    "behaviour"  the sampling log-probs that came with the rollouts (pi_behav): nothing to score
                 (`needs_proximal` is False; the first mini-batch's own forward still gives
                 pi_prox for the metrics, for free)

and two methods, both on [B, T] log-probs with a [B, T] mask of the tokens that count:

    weights(proximal_logp, behaviour_logp, mask) -> [B, T] detached weights (0 on masked tokens),
                  or None: every weight is 1
    metrics(proximal_logp, behaviour_logp, mask, advantages, clip_bounds) -> {name: 0-dim tensor}:
                  token means and `_max` figures of pi_prox / pi_behav over the rows given, {} when
                  no token counts
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from torch import Tensor

OLD_POLICIES = ("proximal", "behaviour")


class OffPolicyCorrection(Protocol):
    name: str
    old_policy: str  # "proximal" | "behaviour"
    needs_proximal: bool  # set by the registry: old_policy == "proximal"

    def weights(self, proximal_logp: Tensor, behaviour_logp: Tensor, mask: Tensor) -> Tensor | None: ...

    def metrics(
        self,
        proximal_logp: Tensor,
        behaviour_logp: Tensor,
        mask: Tensor,
        advantages: Tensor,
        clip_bounds: tuple[float, float] | None,
    ) -> dict[str, Tensor]: ...


_REGISTRY: dict[str, type] = {}
T = TypeVar("T", bound=type)


def register_correction(name: str) -> Callable[[T], T]:
    """Class decorator: register a correction dataclass under `name` (also stored as `cls.name`)."""

    def decorator(cls: T) -> T:
        if name in _REGISTRY:
            raise ValueError(f"correction {name!r} is already registered by {_REGISTRY[name].__name__}")
        if getattr(cls, "old_policy", None) not in OLD_POLICIES:
            raise ValueError(f"correction {name!r}: old_policy must be one of {', '.join(OLD_POLICIES)}")
        cls.name = name
        # The update loop scores pi_prox for every row exactly when the loss's ratio is taken against it.
        cls.needs_proximal = cls.old_policy == "proximal"
        _REGISTRY[name] = cls
        return cls

    return decorator


def registered_corrections() -> tuple[str, ...]:
    """Names of every registered correction, in registration order."""
    return tuple(_REGISTRY)


def get_correction(name: str, **params: Any) -> OffPolicyCorrection:
    """Build the correction registered as `name`; an unknown name or parameter raises ValueError
    listing the valid ones, a value out of range one naming the parameter."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown off-policy correction {name!r}; valid: {', '.join(_REGISTRY)}")
    cls = _REGISTRY[name]
    valid = [f.name for f in dataclasses.fields(cls) if f.init]
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(unknown)} for correction {name!r}; valid: {', '.join(valid) or 'none'}"
        )
    return cls(**params)


def check_cap(value: Any) -> None:
    """A truncation cap C of importance weights min(ratio, C): a number >= 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 1.0:
        raise ValueError(f"cap must be a number >= 1, got {value!r}")
