"""Schedules for CE-GPPO's (beta1, beta2) over training steps.

CE-GPPO's betas set how hard the clipped low-probability tokens pull entropy down (beta1, NA&LP)
and up (beta2, PA&LP); changing them during training moves the run between exploration and
exploitation. The paper changes its betas partway through a run (at its step 585); `switch`
expresses that, `linear` a gradual hand-over.

    constant  (beta1, beta2) at every step
    switch    (beta1, beta2) before step `steps`, (beta1_end, beta2_end) from step `steps` on
    linear    from (beta1, beta2) at step 0 to (beta1_end, beta2_end) at step `steps`, then constant

Every kind is (1 - p) * start + p * end with its own progress p(step) in [0, 1].
Apply a value to a built loss with dataclasses.replace(loss_fn, beta1=b1, beta2=b2), which
re-runs the loss's checks.
"""

from __future__ import annotations

from dataclasses import dataclass

from .registry import check_nonnegative


def _constant(step: int, steps: int) -> float:
    return 0.0


def _switch(step: int, steps: int) -> float:
    return 1.0 if step >= steps else 0.0


def _linear(step: int, steps: int) -> float:
    return min(step / steps, 1.0)


_PROGRESS = {"constant": _constant, "switch": _switch, "linear": _linear}
SCHEDULE_KINDS: tuple[str, ...] = tuple(_PROGRESS)


@dataclass(frozen=True)
class BetaSchedule:
    """(beta1, beta2) as a function of the optimizer step; see the module docstring.

    beta1_end / beta2_end default to the start values (only one beta changes); `steps` is the
    switch step for `switch` (>= 0) and the ramp length for `linear` (>= 1).
    """

    kind: str = "constant"
    beta1: float = 0.5
    beta2: float = 1.0
    beta1_end: float | None = None
    beta2_end: float | None = None
    steps: int = 0

    def __post_init__(self) -> None:
        if self.kind not in _PROGRESS:
            raise ValueError(f"unknown beta schedule {self.kind!r}; valid: {', '.join(_PROGRESS)}")
        for name in ("beta1", "beta2"):
            check_nonnegative(name, getattr(self, name))
        for name in ("beta1_end", "beta2_end"):
            if getattr(self, name) is not None:
                check_nonnegative(name, getattr(self, name))
        if self.kind == "constant" and (self.beta1_end, self.beta2_end, self.steps) != (None, None, 0):
            raise ValueError("a constant beta schedule takes no beta1_end, beta2_end or steps")
        min_steps = 1 if self.kind == "linear" else 0
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < min_steps:
            raise ValueError(f"steps of a {self.kind!r} schedule must be an integer >= {min_steps}, got {self.steps!r}")

    def beta_at(self, step: int) -> tuple[float, float]:
        """(beta1, beta2) to use at optimizer step `step` (>= 0)."""
        if step < 0:
            raise ValueError(f"step must be >= 0, got {step}")
        progress = _PROGRESS[self.kind](step, self.steps)
        end1 = self.beta1 if self.beta1_end is None else self.beta1_end
        end2 = self.beta2 if self.beta2_end is None else self.beta2_end
        # (1 - p) a + p b is exactly a at p = 0 and exactly b at p = 1
        return (1 - progress) * self.beta1 + progress * end1, (1 - progress) * self.beta2 + progress * end2
