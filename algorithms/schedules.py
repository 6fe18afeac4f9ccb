"""Schedules of a loss's schedulable coefficients over training steps (CE-GPPO: beta1, beta2).

CE-GPPO's betas set how hard the clipped low-probability tokens pull entropy down (beta1, NA&LP)
and up (beta2, PA&LP); changing them during training moves the run between exploration and
exploitation. The paper changes its betas partway through a run (at its step 585); `switch`
expresses that, `linear` a gradual hand-over. Any loss may declare other coefficients schedulable
(`PolicyLoss.schedulable`); a schedule moves whichever it names.

    constant  the start values at every step
    switch    start values before step `steps`, end values from step `steps` on
    linear    from the start values at step 0 to the end values at step `steps`, then constant

Every kind is (1 - p) * start + p * end with its own progress p(step) in [0, 1].

    schedule = schedule_for(loss, kind="switch", step=585, beta1=0.75)   # None for constant
    loss_now = loss.with_coefficients(**schedule.values_at(step))       # re-runs the loss's checks

This module owns the rules of a schedule (its kinds, its step, which targets it needs); the loss
owns which coefficients may move and their ranges (`with_coefficients` checks both).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field


def _constant(step: int, steps: int) -> float:
    return 0.0


def _switch(step: int, steps: int) -> float:
    return 1.0 if step >= steps else 0.0


def _linear(step: int, steps: int) -> float:
    return min(step / steps, 1.0)


_PROGRESS = {"constant": _constant, "switch": _switch, "linear": _linear}
SCHEDULE_KINDS: tuple[str, ...] = tuple(_PROGRESS)


@dataclass(frozen=True)
class CoefficientSchedule:
    """Coefficient values as a function of the optimizer step; see the module docstring.

    `end` names the coefficients that move (the others keep their `start` value); `steps` is the
    switch step for `switch` (>= 0) and the ramp length for `linear` (>= 1)."""

    kind: str
    start: Mapping[str, float]
    end: Mapping[str, float] = field(default_factory=dict)
    steps: int = 0

    def __post_init__(self) -> None:
        if self.kind not in _PROGRESS:
            raise ValueError(f"unknown schedule kind {self.kind!r}; valid: {', '.join(_PROGRESS)}")
        for name, value in {**self.start, **self.end}.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        unknown = sorted(set(self.end) - set(self.start))
        if unknown:
            raise ValueError(f"the schedule moves {', '.join(unknown)} but starts only {', '.join(self.start)}")
        if self.kind == "constant" and (self.end or self.steps):
            raise ValueError("a constant schedule takes no step or target values")
        min_steps = 1 if self.kind == "linear" else 0
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < min_steps:
            raise ValueError(f"step of a {self.kind!r} schedule must be an integer >= {min_steps}, got {self.steps!r}")

    def values_at(self, step: int) -> dict[str, float]:
        """{coefficient: value} to use at optimizer step `step` (>= 0)."""
        if step < 0:
            raise ValueError(f"step must be >= 0, got {step}")
        progress = _PROGRESS[self.kind](step, self.steps)
        # (1 - p) a + p b is exactly a at p = 0 and exactly b at p = 1
        return {
            name: (1 - progress) * start + progress * self.end.get(name, start) for name, start in self.start.items()
        }


def schedule_for(loss, kind: str = "constant", step: int = 0, **targets: float) -> CoefficientSchedule | None:
    """The schedule of `loss`'s coefficients from their current values to `targets` (None: constant).

    Raises ValueError for an unknown kind, a bad step, a constant schedule given targets, a moving
    schedule given none, or a target the loss cannot schedule or accept (the loss's own message)."""
    if kind not in _PROGRESS:
        raise ValueError(f"kind={kind!r} is not allowed; allowed: {', '.join(_PROGRESS)}")
    if kind == "constant":
        if targets or step:
            raise ValueError("kind='constant' takes no step or target values")
        return None
    if not targets:
        names = ", ".join(loss.schedulable) or "nothing: this loss declares no schedulable coefficient"
        raise ValueError(f"kind={kind!r} needs a target value of what it moves ({names})")
    loss.with_coefficients(**targets)  # the loss refuses what it cannot schedule, and out-of-range ends
    return CoefficientSchedule(kind, loss.coefficients(), dict(targets), step)
