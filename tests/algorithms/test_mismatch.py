"""The mismatch corrections (algorithms.corrections.mismatch): every variant's weights by hand, the default
bounds, the figures, and the refusals."""

import math

import pytest
import torch

from algorithms import MISMATCH_VARIANTS, get_correction

# Row 0: rho = 0.4, 1.5, 3.0 and one padded token; row 1: rho = 1.1, 0.9 and two padded ones.
# Sequence ratios: row 0 0.4 * 1.5 * 3 = 1.8 (geometric mean 1.8^(1/3) = 1.2164), row 1 0.99 (0.99^(1/2) = 0.99499).
RHO = [[0.4, 1.5, 3.0, 7.0], [1.1, 0.9, 9.0, 9.0]]
MASK = torch.tensor([[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]], dtype=torch.float64)
PROX = torch.tensor([[math.log(r) for r in row] for row in RHO], dtype=torch.float64)
BEHAV = torch.zeros_like(PROX)

EXPECTED = {
    # (variant, low, high): weights [2, 4]
    ("token_truncate", None, None): [[0.4, 1.5, 2.0, 0], [1.1, 0.9, 0, 0]],  # min(rho, 2)
    ("token_mask", None, None): [[0, 1, 0, 0], [1, 1, 0, 0]],  # 1[0.5 <= rho <= 2]
    ("icepop", None, None): [[0, 1.5, 3.0, 0], [1.1, 0.9, 0, 0]],  # rho 1[0.5 <= rho <= 5]
    ("sequence_truncate", None, 1.5): [[1.5, 1.5, 1.5, 0], [0.99, 0.99, 0, 0]],  # min(prod rho, 1.5)
    ("sequence_truncate", None, None): [[1.8, 1.8, 1.8, 0], [0.99, 0.99, 0, 0]],
    ("sequence_mask", None, 1.5): [[0, 0, 0, 0], [1, 1, 0, 0]],  # 1.8 > 1.5; 0.99 in [0.667, 1.5]
    ("sequence_mask", 0.995, None): [[1, 1, 1, 0], [0, 0, 0, 0]],  # 0.99 < 0.995
    ("geometric_mask", None, None): [[0, 0, 0, 0], [0, 0, 0, 0]],  # both outside [0.999, 1.001]
    ("geometric_mask", None, 1.1): [[0, 0, 0, 0], [1, 1, 0, 0]],  # 1.2164 > 1.1; 0.99499 >= 1 / 1.1
    ("geometric_mask", 0.99, 1.3): [[1, 1, 1, 0], [1, 1, 0, 0]],
}


@pytest.mark.parametrize("key", list(EXPECTED), ids=lambda k: f"{k[0]}-{k[1]}-{k[2]}")
def test_weights_by_hand(key):
    variant, low, high = key
    correction = get_correction("mismatch", variant=variant, low=low, high=high)
    weights = correction.weights(PROX, BEHAV, MASK)
    torch.testing.assert_close(weights, torch.tensor(EXPECTED[key], dtype=torch.float64))
    assert not weights.requires_grad


def test_every_variant_is_covered_and_defaults_follow_the_references():
    assert {k[0] for k in EXPECTED} == set(MISMATCH_VARIANTS)
    bounds = {v: get_correction("mismatch", variant=v).bounds for v in MISMATCH_VARIANTS}
    assert bounds["token_truncate"] == bounds["sequence_mask"] == (0.5, 2.0)  # verl: 2, lower 1 / upper
    assert bounds["geometric_mask"] == pytest.approx((1 / 1.001, 1.001))  # verl's geo_rs preset
    assert bounds["icepop"] == (0.5, 5.0)  # IcePop's alpha, beta
    assert get_correction("mismatch").needs_proximal  # the ratio is against the trainer's pi_prox


def test_figures_share_masked_and_weight_stats():
    figures = get_correction("mismatch", variant="token_mask").metrics(PROX, BEHAV, MASK, torch.ones(2), None)
    assert figures["mismatch_masked_frac"].item() == pytest.approx(2 / 5)  # 0.4 and 3.0 masked
    assert figures["mismatch_weight_mean"].item() == pytest.approx(3 / 5)
    assert figures["mismatch_weight_max"].item() == 1.0
    assert figures["mismatch_ratio_max"].item() == pytest.approx(3.0)
    assert figures["mismatch_ratio_mean"].item() == pytest.approx((0.4 + 1.5 + 3.0 + 1.1 + 0.9) / 5)
    truncate = get_correction("mismatch", variant="token_truncate").metrics(PROX, BEHAV, MASK, torch.ones(2), None)
    assert truncate["mismatch_masked_frac"].item() == 0.0 and truncate["mismatch_weight_max"].item() == 2.0


def test_long_sequences_do_not_overflow():
    prox = torch.full((1, 4000), 0.5, dtype=torch.float64)  # prod rho = e^2000
    mask = torch.ones(1, 4000, dtype=torch.float64)
    weights = get_correction("mismatch", variant="sequence_truncate").weights(prox, torch.zeros_like(prox), mask)
    assert torch.all(weights == 2.0)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"variant": "sequence"}, "mismatch variant must be one of token_truncate"),
        ({"high": 0.8}, "low <= 1 <= high"),
        ({"low": -1.0}, "mismatch low must be a positive number"),
    ],
)
def test_bad_parameters_are_refused(params, message):
    with pytest.raises(ValueError, match=message):
        get_correction("mismatch", **params)
