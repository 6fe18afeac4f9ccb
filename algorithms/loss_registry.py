"""Name -> loss registry, `get_loss`, the capabilities every loss declares, and the shared checks.

A loss is a frozen dataclass whose fields are its hyper-parameters, registered with
`@register_loss("name")`. `get_loss(name, **params)` builds one and refuses unknown names or
parameters with a message listing the valid ones; each loss checks the ranges of its own
parameters in `__post_init__` with the helpers below, so a bad value fails when the loss is built,
not halfway through training.

Capabilities are part of the interface (`PolicyLoss`), so code outside this package never has to
probe a loss with `hasattr`:

    clip_bounds          (eps_low, eps_high) of a token-level ratio clip, or None (no token clip:
                         GSPO clips whole sequences); the trainer's clip-side metrics use it
    schedulable          names of the coefficients a schedule may change during training
                         (CE-GPPO: beta1, beta2)
    coefficients()       {name: current value} of those coefficients (logged every step)
    with_coefficients()  a copy with new values for them (re-runs the range checks)
    needs_old_entropy    True when the loss reads batch.old_entropy (ERC): the trainer then runs a
                         no-grad pass over the step's rows for it before the first update

`register_loss` gives a class that declares none of them the defaults: no token clip, nothing
schedulable. A wrapping loss (`entropy_reg`) forwards them all to the loss it wraps.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from .batch import LossOutput, PolicyBatch
from .names import FLOAT32_SAFE_MAX, FLOAT32_SAFE_MIN, FLOAT32_SAFE_RANGE, float32_safe, unknown_loss  # noqa: F401


class PolicyLoss(Protocol):
    """What the training module relies on: a name, a default aggregation, a call, capabilities."""

    name: str
    default_agg: str
    schedulable: tuple[str, ...]
    needs_old_entropy: bool

    def __call__(self, batch: PolicyBatch) -> LossOutput: ...

    @property
    def clip_bounds(self) -> tuple[float, float] | None: ...

    def coefficients(self) -> dict[str, float]: ...

    def with_coefficients(self, **values: float) -> PolicyLoss: ...


def _no_token_clip(self) -> None:
    return None


def _coefficients(self) -> dict[str, float]:
    return {name: float(getattr(self, name)) for name in self.schedulable}


def _with_coefficients(self, **values: float):
    unknown = sorted(set(values) - set(self.schedulable))
    if unknown:
        allowed = ", ".join(self.schedulable) or "none"
        raise ValueError(f"loss {self.name!r} cannot schedule {', '.join(unknown)}; schedulable: {allowed}")
    return dataclasses.replace(self, **values)


_DEFAULT_CAPABILITIES = {
    "schedulable": (),
    "needs_old_entropy": False,
    "clip_bounds": property(_no_token_clip),
    "coefficients": _coefficients,
    "with_coefficients": _with_coefficients,
}


_REGISTRY: dict[str, type] = {}
T = TypeVar("T", bound=type)


def register_loss(name: str) -> Callable[[T], T]:
    """Class decorator: register a loss dataclass under `name` (also stored as `cls.name`)."""

    def decorator(cls: T) -> T:
        if name in _REGISTRY:
            raise ValueError(f"loss {name!r} is already registered by {_REGISTRY[name].__name__}")
        cls.name = name
        for attribute, default in _DEFAULT_CAPABILITIES.items():
            if not hasattr(cls, attribute):  # declared by the class or a base (TokenClipParams)
                setattr(cls, attribute, default)
        _REGISTRY[name] = cls
        return cls

    return decorator


def registered_losses() -> tuple[str, ...]:
    """Names of every registered loss, in registration order."""
    return tuple(_REGISTRY)


def get_loss(name: str, **params: Any) -> PolicyLoss:
    """Build the loss registered as `name` with the given hyper-parameters (others keep defaults).

    Raises ValueError for an unknown name or parameter (listing the valid ones) and for a value
    out of its range (naming the parameter and the range). A loss class may define a classmethod
    `from_params(**params)` when its parameters are not just its fields (`entropy_reg` forwards
    the ones it does not know to its base loss).
    """
    if name not in _REGISTRY:
        raise ValueError(unknown_loss(name, registered_losses()))
    cls = _REGISTRY[name]
    from_params = getattr(cls, "from_params", None)
    if from_params is not None:
        return from_params(**params)
    valid = [f.name for f in dataclasses.fields(cls) if f.init]
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)} for loss {name!r}; valid: {', '.join(valid)}")
    return cls(**params)


def loss_params(name: str) -> dict[str, Any]:
    """The hyper-parameters of loss `name` with their defaults (for configs and `--help`)."""
    if name not in _REGISTRY:
        raise ValueError(unknown_loss(name, registered_losses()))
    return {f.name: f.default for f in dataclasses.fields(_REGISTRY[name]) if f.init}


# ---- range checks, called from each loss's __post_init__ -------------------------------------------


def _number(name: str, value: Any) -> float:
    """`value` as a float, refused unless it is a number float32 can hold (see float32_safe)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if math.isfinite(value) and not float32_safe(float(value)):
        raise ValueError(f"{name}={value!r} is out of float32's safe range; allowed: {FLOAT32_SAFE_RANGE}")
    return float(value)


def check_eps(name: str, value: Any) -> None:
    """A PPO clip width: the ratio is kept in [1 - eps_low, 1 + eps_high], so eps in (0, 1)."""
    if not 0.0 < _number(name, value) < 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")


def check_positive(name: str, value: Any) -> None:
    """A width with no upper limit (CISPO's truncation bounds): in (0, inf)."""
    v = _number(name, value)
    if not (v > 0.0 and math.isfinite(v)):
        raise ValueError(f"{name} must be in (0, inf), got {value!r}")


def check_nonnegative(name: str, value: Any) -> None:
    """A scale such as beta1, beta2 or coef: in [0, inf)."""
    v = _number(name, value)
    if not (v >= 0.0 and math.isfinite(v)):
        raise ValueError(f"{name} must be in [0, inf), got {value!r}")


def check_clip_ratio_c(value: Any) -> None:
    """The dual-clip bound c: None (off) or a number in (1, inf)."""
    if value is None:
        return
    v = _number("clip_ratio_c", value)
    if not (v > 1.0 and math.isfinite(v)):
        raise ValueError(f"clip_ratio_c must be None (dual clip off) or in (1, inf), got {value!r}")
