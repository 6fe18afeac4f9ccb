"""GRPO: golden values and gradients on every branch of the clipped surrogate."""

import math

import pytest
import torch

from algorithms import aggregate, get_loss

N = 9  # counted tokens of the golden batch (see conftest.GOLDEN_TOKENS)

# loss = max(-A r, -A clip(r, 0.8, 1.2)); gradient d loss / d logp = -A r where unclipped, 0 where clipped
# (loss, grad) for each golden token; the comments give r, A and the branch
GRPO_EXPECTED = [
    (-1.1, -1.1),  # 0  1.1,  +1: inside -> -A r
    (-1.2, 0.0),  # 1  1.5,  +1: clipped at 1.2, no gradient
    (-0.5, -0.5),  # 2  0.5,  +1: max(-0.5, -0.8) = -0.5, unclipped
    (0.8, 0.0),  # 3  0.5,  -1: max(0.5, 0.8) = 0.8, clipped, no gradient
    (1.5, 1.5),  # 4  1.5,  -1: max(1.5, 1.2) = 1.5, unclipped
    (12.0, 12.0),  # 5  12,   -1: no dual clip by default -> grows with r
    (0.0, 0.0),  # 6  A = 0
    (-2.4, -2.4),  # 7  on the upper bound: gradient kept
    (1.6, 1.6),  # 8  on the lower bound: gradient kept
    (0.0, 0.0),  # 9  masked
]


def test_grpo_golden_values_and_gradients(make_golden, grad_of):
    batch = make_golden()
    out = get_loss("grpo")(batch)
    loss, grad = zip(*GRPO_EXPECTED)
    torch.testing.assert_close(out.per_token[0], torch.tensor(loss, dtype=torch.float64), rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(grad_of(out.per_token, batch)[0], torch.tensor(grad, dtype=torch.float64))


def test_grpo_dual_clip_caps_negative_advantage(make_golden, grad_of):
    batch = make_golden()
    out = get_loss("grpo", clip_ratio_c=10.0)(batch)
    grad = grad_of(out.per_token, batch)[0]
    # token 5: A = -1, r = 12 > c: loss min(12, 10) = 10 and no gradient; token 4 (r = 1.5 < c) untouched
    assert out.per_token[0, 5].item() == pytest.approx(10.0)
    assert grad[5].item() == 0.0
    assert grad[4].item() == pytest.approx(1.5)
    assert out.metrics["dual_clip_frac"].item() == pytest.approx(1 / N)
    assert out.metrics["clip_frac"].item() == pytest.approx(3 / N)  # high (1), low (3), dual (5)


def test_grpo_metrics(make_golden):
    out = get_loss("grpo")(make_golden())
    m = {k: v.item() for k, v in out.metrics.items()}
    ratios = [1.1, 1.5, 0.5, 0.5, 1.5, 12.0, 1.5, 1.2, 0.8]
    assert m["clip_frac_high"] == pytest.approx(1 / N)  # token 1 only; token 7 sits on the bound
    assert m["clip_frac_low"] == pytest.approx(1 / N)  # token 3 only; token 8 sits on the bound
    assert m["clip_frac"] == pytest.approx(2 / N)
    assert m["ppo_kl"] == pytest.approx(-sum(map(math.log, ratios)) / N)
    assert m["ratio_mean"] == pytest.approx(sum(ratios) / N)
    assert m["ratio_max"] == pytest.approx(12.0)  # the masked junk token is ignored
    assert "dual_clip_frac" not in m


def test_grpo_asymmetric_eps(make_golden, grad_of):
    batch = make_golden()
    out = get_loss("grpo", eps_low=0.6, eps_high=0.3)(batch)
    grad = grad_of(out.per_token, batch)[0]
    # range [0.4, 1.3]: token 3 (r 0.5, A -1) is now inside, token 1 (r 1.5, A +1) still clipped at 1.3
    assert grad[3].item() == pytest.approx(0.5)
    assert out.per_token[0, 1].item() == pytest.approx(-1.3)
    assert grad[1].item() == 0.0


def test_grpo_default_aggregation_is_per_sequence(make_random):
    batch = make_random()
    loss_fn = get_loss("grpo")
    assert loss_fn.default_agg == "seq_mean_token_mean"
    out = loss_fn(batch)
    m = batch.mask
    expected = ((out.per_token * m).sum(-1) / m.sum(-1)).mean()
    torch.testing.assert_close(aggregate(out.per_token, m, loss_fn.default_agg), expected)
