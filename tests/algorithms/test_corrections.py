"""Off-policy corrections (algorithms.corrections): which old log-probs each takes, its weights and its
figures against hand-worked values, and the registry."""

import dataclasses
import math
from typing import ClassVar

import pytest
import torch

from algorithms import CORRECTIONS, get_correction, register_correction
from algorithms.corrections import correction_registry

# Two rows, two tokens: pi_prox / pi_behav = 2, 1 / 0.5, (padding). Row 0 has A > 0, row 1 A < 0.
PROX = torch.log(torch.tensor([[0.5, 0.3], [0.2, 0.9]]))
BEHAV = torch.log(torch.tensor([[0.25, 0.3], [0.4, 0.0]]))  # padding at -inf: its ratio would be inf
MASK = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
ADV = torch.tensor([1.0, -1.0])
CLIP = (0.2, 0.28)  # a loss's (eps_low, eps_high)


def figures(correction, clip_bounds=CLIP, advantages=ADV):
    return {k: float(v) for k, v in correction.metrics(PROX, BEHAV, MASK, advantages, clip_bounds).items()}


def test_the_five_corrections_are_registered():
    assert set(CORRECTIONS) == {"none", "tis", "decoupled", "behaviour", "mismatch"}


@pytest.mark.parametrize(
    ("name", "old_policy"),
    [("none", "proximal"), ("tis", "proximal"), ("decoupled", "proximal"), ("behaviour", "behaviour")],
)
def test_which_log_probs_are_the_losss_old_policy(name, old_policy):
    correction = get_correction(name)
    assert correction.old_policy == old_policy
    assert correction.needs_proximal == (old_policy == "proximal")  # the trainer scores every row first


@pytest.mark.parametrize("name", ["tis", "decoupled"])
def test_truncated_weights_golden(name):
    w = get_correction(name, cap=1.5).weights(PROX, BEHAV, MASK)
    # min(2, 1.5) = 1.5; min(1, 1.5) = 1; min(0.5, 1.5) = 0.5; padding 0 (its ratio 0.9 / 0 is never taken)
    torch.testing.assert_close(w, torch.tensor([[1.5, 1.0], [0.5, 0.0]]))
    assert not w.requires_grad


def test_weights_are_detached_from_the_proximal_log_probs():
    prox = PROX.clone().requires_grad_()
    w = get_correction("decoupled").weights(prox, BEHAV, MASK)
    assert not w.requires_grad  # the weight moves the expectation; it never carries a gradient


@pytest.mark.parametrize("name", ["none", "behaviour"])
def test_corrections_without_a_weight(name):
    assert get_correction(name).weights(PROX, BEHAV, MASK) is None


def test_tis_figures_golden():
    out = figures(get_correction("tis", cap=1.5))
    assert out == pytest.approx(
        {"mismatch_ratio_mean": 3.5 / 3, "mismatch_ratio_max": 2.0, "mismatch_clip_frac": 1 / 3}
    )


def test_decoupled_figures_golden():
    out = figures(get_correction("decoupled", cap=1.5))
    assert out == pytest.approx(
        {
            "behaviour_ratio_mean": (2 + 1 + 0.5) / 3,
            "behaviour_ratio_max": 2.0,
            "behaviour_cap_frac": 1 / 3,  # the ratio 2 > 1.5
            "behaviour_out_high": 1 / 3,  # A > 0 and 2 > 1.28
            "behaviour_out_low": 1 / 3,  # A < 0 and 0.5 < 0.8
        }
    )


def test_behaviour_figures_golden():
    out = figures(get_correction("behaviour"))
    assert out == pytest.approx(
        {
            "behaviour_ratio_mean": 3.5 / 3,
            "behaviour_ratio_max": 2.0,
            "behaviour_out_high": 1 / 3,
            "behaviour_out_low": 1 / 3,
        }
    )
    # a loss without a token clip (GSPO) gets no out-of-clip shares; per-token advantages work as [B] ones do
    assert set(figures(get_correction("behaviour"), clip_bounds=None)) == {
        "behaviour_ratio_mean",
        "behaviour_ratio_max",
    }
    assert figures(get_correction("behaviour"), advantages=ADV.unsqueeze(-1).expand(2, 2)) == pytest.approx(out)


def test_no_figures_without_counted_tokens_or_correction():
    empty = torch.zeros(2, 2)
    for name in CORRECTIONS:
        assert get_correction(name).metrics(PROX, BEHAV, empty, ADV, CLIP) == {}
    assert figures(get_correction("none")) == {}


def test_registry_errors():
    with pytest.raises(ValueError, match="unknown off-policy correction 'is'; valid: .*decoupled"):
        get_correction("is")
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) cap for correction 'behaviour'; valid: none"):
        get_correction("behaviour", cap=2.0)
    with pytest.raises(ValueError, match="cap must be a number >= 1, got 0.5"):
        get_correction("tis", cap=0.5)
    with pytest.raises(ValueError, match="already registered"):
        register_correction("tis")(type("Again", (), {"old_policy": "proximal"}))
    with pytest.raises(ValueError, match="old_policy must be one of proximal, behaviour"):
        register_correction("odd")(type("Odd", (), {"old_policy": "reference"}))


def test_a_new_correction_is_one_registered_class():
    @register_correction("test_halved")
    @dataclasses.dataclass(frozen=True)
    class Halved:
        old_policy: ClassVar[str] = "behaviour"

        def weights(self, proximal_logp, behaviour_logp, mask):
            return 0.5 * mask

        def metrics(self, proximal_logp, behaviour_logp, mask, advantages, clip_bounds):
            return {}

    try:
        correction = get_correction("test_halved")
        assert correction.name == "test_halved" and not correction.needs_proximal
        assert correction.weights(PROX, BEHAV, MASK).tolist() == [[0.5, 0.5], [0.5, 0.0]]
    finally:
        del correction_registry._REGISTRY["test_halved"]


def test_behaviour_ratio_ignores_padding():
    from algorithms.corrections.importance import behaviour_ratio

    ratio = behaviour_ratio(PROX, torch.tensor([[-math.inf, 0.0], [0.0, -1e4]]), MASK)
    assert ratio[0, 0] == math.inf  # a counted token keeps what it is
    assert ratio[1, 1] == 1.0  # padding: 1, whatever the log-probs there
