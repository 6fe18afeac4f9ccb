"""CE-GPPO and GPPO: golden values, the closed-form gradients (docs/design.md, "The losses"), and the GRPO limit."""

import dataclasses

import pytest
import torch

from algorithms import get_loss

N = 9

# ce_gppo(beta1 0.5, beta2 1, c 10) on the golden tokens: (loss, d loss / d logp)
#   NA&LP (A<0, r<0.8): loss -beta1 0.8 A (r/sg r), grad -beta1 0.8 A
#   PA&LP (A>0, r>1.2): loss -beta2 1.2 A (r/sg r), grad -beta2 1.2 A
#   otherwise -r A, grad -r A; A<0 and loss > -A c: loss -A c, grad 0
CE_GPPO_EXPECTED = [
    (-1.1, -1.1),  # 0  r 1.1, A +1: inside
    (-1.2, -1.2),  # 1  r 1.5, A +1: PA&LP, -1 * 1.2 * 1; GRPO's gradient here is 0
    (-0.5, -0.5),  # 2  r 0.5, A +1: inside (PPO does not clip this side)
    (0.4, 0.4),  # 3  r 0.5, A -1: NA&LP, -0.5 * 0.8 * (-1); GRPO's gradient here is 0
    (1.5, 1.5),  # 4  r 1.5, A -1: inside
    (10.0, 0.0),  # 5  r 12,  A -1: dual clip at c = 10
    (0.0, 0.0),  # 6  A = 0
    (-2.4, -2.4),  # 7  on the upper bound: inside
    (1.6, 1.6),  # 8  on the lower bound: inside
    (0.0, 0.0),  # 9  masked
]


def _expected(rows):
    loss, grad = zip(*rows)
    return torch.tensor(loss, dtype=torch.float64), torch.tensor(grad, dtype=torch.float64)


def test_ce_gppo_golden(make_golden, grad_of):
    batch = make_golden()
    out = get_loss("ce_gppo")(batch)
    loss, grad = _expected(CE_GPPO_EXPECTED)
    torch.testing.assert_close(out.per_token[0], loss)
    torch.testing.assert_close(grad_of(out.per_token, batch)[0], grad)
    m = {k: v.item() for k, v in out.metrics.items()}
    assert (m["clip_frac_high"], m["clip_frac_low"], m["dual_clip_frac"]) == pytest.approx((1 / N, 1 / N, 1 / N))
    assert m["clip_frac"] == pytest.approx(3 / N)


@pytest.mark.parametrize("beta1, beta2", [(0.75, 0.5), (2.0, 0.0), (0.0, 3.0)])
def test_ce_gppo_clipped_gradients_follow_the_closed_form(make_random, grad_of, beta1, beta2):
    eps_low, eps_high = 0.2, 0.25
    batch = make_random(B=8, T=12, spread=0.6)
    out = get_loss("ce_gppo", eps_low=eps_low, eps_high=eps_high, beta1=beta1, beta2=beta2, clip_ratio_c=None)(batch)
    grad = grad_of(out.per_token, batch)
    r = torch.exp(batch.logp - batch.old_logp).detach()
    adv, m = batch.advantages, batch.mask.bool()
    na_lp = m & (adv < 0) & (r < 1 - eps_low)
    pa_lp = m & (adv > 0) & (r > 1 + eps_high)
    inside = m & ~na_lp & ~pa_lp
    assert na_lp.any() and pa_lp.any() and inside.any()  # every branch is exercised
    torch.testing.assert_close(grad[na_lp], (-beta1 * (1 - eps_low) * adv)[na_lp])
    torch.testing.assert_close(grad[pa_lp], (-beta2 * (1 + eps_high) * adv)[pa_lp])
    torch.testing.assert_close(grad[inside], (-r * adv)[inside])
    assert torch.all(grad[~m] == 0)
    # forward values of clipped tokens are beta times PPO's clipped value
    torch.testing.assert_close(out.per_token[pa_lp], (-beta2 * (1 + eps_high) * adv)[pa_lp])


@pytest.mark.parametrize("clip_ratio_c", [None, 3.0])
def test_zero_betas_give_exactly_grpo_gradient(make_random, grad_of, clip_ratio_c):
    batch = make_random(B=8, T=12, spread=1.0)
    ce = get_loss("ce_gppo", beta1=0.0, beta2=0.0, clip_ratio_c=clip_ratio_c)(batch)
    grpo = get_loss("grpo", clip_ratio_c=clip_ratio_c)(batch)
    assert grpo.metrics["clip_frac"] > 0.2  # many tokens clipped, so the comparison means something
    torch.testing.assert_close(grad_of(ce.per_token, batch), grad_of(grpo.per_token, batch), rtol=0, atol=0)


def test_gppo_is_ce_gppo_with_unit_betas(make_random, make_golden, grad_of):
    for batch in (make_random(spread=0.8), make_golden()):
        gppo = get_loss("gppo")(batch)
        ce = get_loss("ce_gppo", beta1=1.0, beta2=1.0)(batch)
        torch.testing.assert_close(gppo.per_token, ce.per_token, rtol=0, atol=0)
        torch.testing.assert_close(grad_of(gppo.per_token, batch), grad_of(ce.per_token, batch), rtol=0, atol=0)
        assert gppo.metrics.keys() == ce.metrics.keys()
    golden = make_golden()
    grad = grad_of(get_loss("gppo")(golden).per_token, golden)[0]
    assert grad[1].item() == pytest.approx(-1.2) and grad[3].item() == pytest.approx(0.8)  # full (1 -+ eps) A


def test_defaults_follow_the_paper():
    ce = get_loss("ce_gppo")
    assert (ce.eps_low, ce.eps_high, ce.beta1, ce.beta2, ce.clip_ratio_c) == (0.2, 0.2, 0.5, 1.0, 10.0)
    assert ce.default_agg == "token_mean"
    gppo = get_loss("gppo")
    assert (gppo.eps_low, gppo.eps_high, gppo.clip_ratio_c, gppo.default_agg) == (
        0.2,
        0.2,
        10.0,
        "token_mean",
    )
    with pytest.raises(ValueError, match="beta1"):
        get_loss("gppo", beta1=0.5)  # gppo has no betas: they are fixed at 1


def test_betas_can_be_changed_with_replace_and_are_validated():
    ce = get_loss("ce_gppo")
    assert dataclasses.replace(ce, beta1=0.75).beta1 == 0.75
    with pytest.raises(ValueError, match=r"beta2 must be in \[0, inf\)"):
        dataclasses.replace(ce, beta2=-1.0)
