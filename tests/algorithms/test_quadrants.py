"""Token-quadrant statistics and the first-order entropy change of a softmax policy."""

import math

import pytest
import torch

from algorithms import (
    QUADRANTS,
    clipped_token_counts,
    entropy_change_first_order,
    get_loss,
    grad_wrt_logp,
    quadrant_stats,
)


def _entropy(logits: torch.Tensor) -> torch.Tensor:
    logp = torch.log_softmax(logits, -1)
    return -(logp.exp() * logp).sum(-1)


def test_quadrant_fractions_and_gradient_shares():
    # probs 0.9 / 0.1 around the threshold 0.5; token 4 has A = 0; token 5 is masked
    old_logp = torch.tensor([[0.9, 0.1, 0.9, 0.1, 0.5, 0.9]]).log()
    adv = torch.tensor([[1.0, 2.0, -1.0, -3.0, 0.0, 1.0]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 0]])
    coef = torch.tensor([[1.0, -2.0, 3.0, -4.0, 10.0, 100.0]])
    stats = quadrant_stats(adv, old_logp, mask, prob_threshold=0.5, grad_coef=coef)
    for q in QUADRANTS:
        assert stats[f"frac_{q}"].item() == pytest.approx(1 / 5)
    # |coef| over counted tokens: 1 + 2 + 3 + 4 + 10 = 20
    shares = [stats[f"grad_share_{q}"].item() for q in QUADRANTS]
    assert shares == pytest.approx([1 / 20, 2 / 20, 3 / 20, 4 / 20])
    low = quadrant_stats(adv, old_logp, mask, prob_threshold=0.05)
    assert (low["frac_pa_hp"].item(), low["frac_pa_lp"].item()) == pytest.approx((2 / 5, 0.0))
    assert "grad_share_pa_hp" not in low
    with pytest.raises(ValueError, match="prob_threshold"):
        quadrant_stats(adv, old_logp, mask, prob_threshold=1.0)


def test_gradient_shares_from_a_ce_gppo_loss(make_golden):
    batch = make_golden()
    out = get_loss("ce_gppo")(batch)
    coef = grad_wrt_logp(out.per_token, batch.logp)
    assert batch.logp.grad is None  # nothing accumulated
    # golden tokens have old_logp = 0 (prob 1 > threshold): every token is HP
    stats = quadrant_stats(batch.advantages, batch.old_logp, batch.mask, grad_coef=coef)
    total = 1.1 + 1.2 + 0.5 + 0.4 + 1.5 + 0 + 0 + 2.4 + 1.6
    assert stats["grad_share_pa_hp"].item() == pytest.approx((1.1 + 1.2 + 0.5 + 2.4) / total)
    assert stats["grad_share_na_hp"].item() == pytest.approx((0.4 + 1.5 + 1.6) / total)


def test_first_order_estimate_is_the_directional_derivative():
    gen = torch.Generator().manual_seed(0)
    logits = (2 * torch.randn(4, 32, generator=gen, dtype=torch.float64)).requires_grad_()
    direction = torch.randn(4, 32, generator=gen, dtype=torch.float64)
    (dH,) = torch.autograd.grad(_entropy(logits).sum(), logits)
    torch.testing.assert_close(entropy_change_first_order(logits.detach(), direction), (dH * direction).sum(-1))


def test_first_order_error_is_second_order():
    gen = torch.Generator().manual_seed(1)
    logits = 2 * torch.randn(32, generator=gen, dtype=torch.float64)
    direction = torch.randn(32, generator=gen, dtype=torch.float64)
    errors = []
    for eta in (1e-2, 1e-3):
        measured = _entropy(logits + eta * direction) - _entropy(logits)
        errors.append(abs(measured - entropy_change_first_order(logits, eta * direction)).item())
    assert errors[1] < errors[0] / 50  # shrinks like eta^2, not eta


@pytest.mark.parametrize(
    "token, adv, sign",
    [("high", +1, -1), ("low", +1, +1), ("high", -1, +1), ("low", -1, -1)],
    ids=["PA&HP lowers H", "PA&LP raises H", "NA&HP raises H", "NA&LP lowers H"],
)
def test_quadrant_entropy_signs(token, adv, sign):
    # a peaked policy: one action at ~0.8, the rest share 0.2
    logits = torch.zeros(32, dtype=torch.float64)
    logits[0] = math.log(0.8 / 0.2 * 31)
    logits[1:] = torch.linspace(-1, 1, 31, dtype=torch.float64)
    pi = torch.softmax(logits, -1)
    action = 0 if token == "high" else 1  # action 1 is among the least likely
    # policy-gradient step on log pi(action) with weight eta * A: dz = eta A (e_a - pi)
    dz = 1e-3 * adv * (torch.nn.functional.one_hot(torch.tensor(action), 32).double() - pi)
    predicted = entropy_change_first_order(logits, dz).item()
    measured = (_entropy(logits + dz) - _entropy(logits)).item()
    assert math.copysign(1, predicted) == sign and math.copysign(1, measured) == sign
    assert measured == pytest.approx(predicted, rel=1e-2)


def test_clipped_token_counts_by_side_and_probability():
    # One row, A = -1 on row 0 and +1 on row 1; eps 0.2 both sides; LP means pi_old <= 0.5.
    old_p = torch.tensor([[0.9, 0.3, 0.3, 0.4], [0.9, 0.2, 0.6, 0.2]])
    ratio = torch.tensor([[0.7, 0.7, 0.9, 0.8], [1.3, 1.3, 1.1, 1.5]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
    counts = clipped_token_counts(
        torch.tensor([-1.0, 1.0]),
        (old_p * ratio).log(),
        old_p.log(),
        mask,
        eps_low=0.2,
        eps_high=0.2,
    )
    # Row 0 (A<0): ratios 0.7 (HP), 0.7 (LP) clipped; 0.9 inside; 0.8 exactly on the bound, not clipped.
    # Row 1 (A>0): 1.3 (HP), 1.3 (LP) clipped; 1.1 inside; 1.5 (LP) masked out.
    assert {k: int(v) for k, v in counts.items()} == {
        "clip_low": 2,
        "clip_low_lp": 1,
        "clip_high": 2,
        "clip_high_lp": 1,
    }
