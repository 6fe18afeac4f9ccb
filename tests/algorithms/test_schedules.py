"""Beta schedules for CE-GPPO."""

import pytest

from algorithms import BetaSchedule


def test_constant():
    schedule = BetaSchedule(beta1=0.5, beta2=1.0)
    assert schedule.beta_at(0) == schedule.beta_at(10_000) == (0.5, 1.0)


def test_switch_at_step_585():
    schedule = BetaSchedule("switch", beta1=0.5, beta2=1.0, beta1_end=0.75, steps=585)
    assert schedule.beta_at(584) == (0.5, 1.0)
    assert schedule.beta_at(585) == (0.75, 1.0)  # beta2_end defaults to beta2
    assert schedule.beta_at(2000) == (0.75, 1.0)


def test_linear():
    schedule = BetaSchedule("linear", beta1=0.0, beta2=2.0, beta1_end=1.0, beta2_end=1.0, steps=100)
    assert schedule.beta_at(0) == (0.0, 2.0)
    assert schedule.beta_at(25) == pytest.approx((0.25, 1.75))
    assert schedule.beta_at(100) == (1.0, 1.0)
    assert schedule.beta_at(1000) == (1.0, 1.0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"kind": "cosine"}, "constant, switch, linear"),
        ({"beta1": -0.5}, r"beta1 must be in \[0, inf\)"),
        ({"kind": "switch", "beta2_end": -1.0, "steps": 3}, "beta2_end"),
        ({"kind": "linear", "beta1_end": 1.0, "steps": 0}, "integer >= 1"),
        ({"kind": "switch", "beta1_end": 1.0, "steps": -1}, "integer >= 0"),
        ({"kind": "constant", "beta1_end": 1.0}, "takes no"),
    ],
)
def test_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BetaSchedule(**kwargs)


def test_negative_step():
    with pytest.raises(ValueError, match="step"):
        BetaSchedule().beta_at(-1)
