"""CISPO: truncated importance weights, gradient -w A on every token, the large-eps convention."""

import math

import pytest
import torch

from algorithms import get_loss

N = 9

# w = clip(r, 0.8, 1.2) whatever the sign of A; loss -w A log r (old_logp = 0); grad -w A
CISPO_EXPECTED_W = [1.1, 1.2, 0.8, 0.8, 1.2, 1.2, 1.2, 1.2, 0.8]


def test_cispo_golden(make_golden, grad_of):
    batch = make_golden()
    out = get_loss("cispo")(batch)
    r = [1.1, 1.5, 0.5, 0.5, 1.5, 12.0, 1.5, 1.2, 0.8]
    adv = [1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 0.0, 2.0, -2.0]
    loss = [-w * a * math.log(x) for w, a, x in zip(CISPO_EXPECTED_W, adv, r)] + [0.0]
    grad = [-w * a for w, a in zip(CISPO_EXPECTED_W, adv)] + [0.0]
    torch.testing.assert_close(out.per_token[0], torch.tensor(loss, dtype=torch.float64))
    torch.testing.assert_close(grad_of(out.per_token, batch)[0], torch.tensor(grad, dtype=torch.float64))
    m = {k: v.item() for k, v in out.metrics.items()}
    assert m["clip_frac"] == pytest.approx(6 / N)  # weights truncated at tokens 1-6 (any sign of A)
    assert (m["clip_frac_high"], m["clip_frac_low"]) == pytest.approx((1 / N, 1 / N))


def test_cispo_keeps_gradient_where_grpo_drops_it(make_random, grad_of):
    batch = make_random(B=8, T=12, spread=0.8)
    cispo = grad_of(get_loss("cispo")(batch).per_token, batch)
    grpo = grad_of(get_loss("grpo")(batch).per_token, batch)
    counted_nonzero_adv = batch.mask.bool() & (batch.advantages != 0)
    dropped_by_grpo = counted_nonzero_adv & (grpo == 0)
    assert dropped_by_grpo.sum() >= 5
    assert torch.all(cispo[counted_nonzero_adv] != 0)
    # and the gradient is exactly -clip(r) A
    r = torch.exp(batch.logp - batch.old_logp).detach()
    expected = -r.clamp(0.8, 1.2) * batch.advantages
    torch.testing.assert_close(cispo[batch.mask.bool()], expected[batch.mask.bool()])


def test_cispo_large_eps_convention(make_golden, grad_of):
    # eps_low >= 1: no lower truncation; eps_high = 4: weights capped at 5
    batch = make_golden()
    out = get_loss("cispo", eps_low=2.0, eps_high=4.0)(batch)
    grad = grad_of(out.per_token, batch)[0]
    assert grad[2].item() == pytest.approx(-0.5)  # r 0.5, A +1: weight 0.5, not truncated
    assert grad[5].item() == pytest.approx(5.0)  # r 12, A -1: weight capped at 1 + 4
    assert grad[4].item() == pytest.approx(1.5)  # r 1.5 inside [-1, 5]


def test_cispo_defaults():
    loss_fn = get_loss("cispo")
    assert (loss_fn.eps_low, loss_fn.eps_high, loss_fn.default_agg) == (0.2, 0.2, "token_mean")
