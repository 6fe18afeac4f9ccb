"""Schedules of a loss's coefficients: CE-GPPO's betas (the paper's switch at step 585), and any
coefficient another loss declares schedulable."""

import dataclasses
from typing import ClassVar

import pytest

from algorithms import CoefficientSchedule, get_loss, schedule_for
from algorithms.loss_registry import _REGISTRY, check_nonnegative, register_loss


def test_constant_is_no_schedule():
    assert schedule_for(get_loss("ce_gppo", beta1=0.5)) is None
    schedule = CoefficientSchedule("constant", {"beta1": 0.5, "beta2": 1.0})
    assert schedule.values_at(0) == schedule.values_at(10_000) == {"beta1": 0.5, "beta2": 1.0}


def test_switch_at_step_585():
    schedule = schedule_for(get_loss("ce_gppo", beta1=0.5, beta2=1.0), "switch", 585, beta1=0.75)
    assert schedule.values_at(584) == {"beta1": 0.5, "beta2": 1.0}
    assert schedule.values_at(585) == {"beta1": 0.75, "beta2": 1.0}  # beta2 keeps its start value
    assert schedule.values_at(2000) == {"beta1": 0.75, "beta2": 1.0}


def test_linear():
    schedule = schedule_for(get_loss("ce_gppo", beta1=0.0, beta2=2.0), "linear", 100, beta1=1.0, beta2=1.0)
    assert schedule.values_at(0) == {"beta1": 0.0, "beta2": 2.0}
    assert schedule.values_at(25) == pytest.approx({"beta1": 0.25, "beta2": 1.75})
    assert schedule.values_at(100) == {"beta1": 1.0, "beta2": 1.0}
    assert schedule.values_at(1000) == {"beta1": 1.0, "beta2": 1.0}


@pytest.mark.parametrize(
    "loss, kind, step, targets, match",
    [
        ("ce_gppo", "cosine", 0, {"beta1": 1.0}, "constant, switch, linear"),
        ("ce_gppo", "switch", 3, {"beta2": -1.0}, r"beta2 must be in \[0, inf\)"),  # the loss's own range
        ("ce_gppo", "linear", 0, {"beta1": 1.0}, "integer >= 1"),
        ("ce_gppo", "switch", -1, {"beta1": 1.0}, "integer >= 0"),
        ("ce_gppo", "constant", 0, {"beta1": 1.0}, "takes no"),
        ("ce_gppo", "switch", 3, {}, "needs a target value of what it moves"),
        ("ce_gppo", "switch", 3, {"eps_low": 0.1}, "cannot schedule eps_low; schedulable: beta1, beta2"),
        ("grpo", "switch", 3, {"beta1": 0.5}, "cannot schedule beta1; schedulable: none"),
    ],
)
def test_refusals(loss, kind, step, targets, match):
    with pytest.raises(ValueError, match=match):
        schedule_for(get_loss(loss), kind, step, **targets)


def test_negative_step():
    with pytest.raises(ValueError, match="step"):
        CoefficientSchedule("constant", {"beta1": 0.5}).values_at(-1)


@pytest.fixture
def temperature_loss():
    """A loss registered after import whose schedulable coefficient is not a beta."""

    @register_loss("test_scaled_pg")
    @dataclasses.dataclass(frozen=True)
    class ScaledPolicyGradient:
        scale: float = 1.0
        default_agg: ClassVar[str] = "token_mean"
        schedulable: ClassVar[tuple[str, ...]] = ("scale",)

        def __post_init__(self):
            check_nonnegative("scale", self.scale)

        def __call__(self, batch):
            raise NotImplementedError  # never called here

    yield "test_scaled_pg"
    del _REGISTRY["test_scaled_pg"]


def test_any_schedulable_coefficient_of_a_later_loss(temperature_loss):
    loss = get_loss(temperature_loss, scale=2.0)
    schedule = schedule_for(loss, "linear", 4, scale=0.0)
    assert schedule.values_at(1) == {"scale": 1.5}
    assert loss.with_coefficients(**schedule.values_at(4)).scale == 0.0
