"""ERC (grpo_erc, gppo_erc): golden values by hand, gradients against the formula, the open-band limits,
and the token-mean denominator that keeps the out-of-band tokens."""

import dataclasses
import math
import re

import pytest
import torch

from algorithms import aggregate, get_loss

N = 9
# Entropy of the current policy per golden token (the old policy's is 1.0 everywhere); band 0.95 / 1.05.
# Out of the band: 1 (ratio 1.2), 2 (0.9), 8 (1.06). Token 9 is masked junk.
ENTROPY = [1.0, 1.2, 0.9, 1.0, 1.04, 1.0, 1.0, 0.96, 1.06, math.nan]
OUT_OF_BAND = [1, 2, 8]

# gppo_erc (eps 0.2 / 0.2, c 10): GPPO's value on every token; its gradient only inside the band.
# (value, gradient) with GPPO's gradients: clipped sides -(1 -+ eps) A, inside -r A, dual clip 0.
GPPO_ERC_EXPECTED = [
    (-1.1, -1.1),  # 0  r 1.1, A +1: inside the clip and the band
    (-1.2, 0.0),  # 1  r 1.5, A +1: PA&LP (GPPO grad -1.2), but out of the band
    (-0.5, 0.0),  # 2  r 0.5, A +1: inside the clip, out of the band
    (0.8, 0.8),  # 3  r 0.5, A -1: NA&LP, -(0.8)(-1)
    (1.5, 1.5),  # 4  r 1.5, A -1: inside (entropy ratio 1.04)
    (10.0, 0.0),  # 5  r 12, A -1: dual clip
    (0.0, 0.0),  # 6  A = 0
    (-2.4, -2.4),  # 7  r 1.2 on the bound, A +2 (entropy ratio 0.96)
    (1.6, 0.0),  # 8  r 0.8 on the bound, A -2: out of the band
    (0.0, 0.0),  # 9  masked
]
# grpo_erc (eps 0.2 / 0.28, c 10): PPO's clipped value; gradient -r A where PPO keeps one and in the band.
GRPO_ERC_EXPECTED = [
    (-1.1, -1.1),  # 0
    (-1.28, 0.0),  # 1  clipped at 1 + 0.28 (and out of the band)
    (-0.5, 0.0),  # 2  out of the band
    (0.8, 0.0),  # 3  clipped at 1 - 0.2: no gradient
    (1.5, 1.5),  # 4
    (10.0, 0.0),  # 5  dual clip
    (0.0, 0.0),  # 6
    (-2.4, -2.4),  # 7  r 1.2 < 1.28: inside
    (1.6, 0.0),  # 8  on the lower bound, out of the band
    (0.0, 0.0),  # 9
]


def _with_entropies(batch, entropy, old_entropy):
    ent = torch.tensor([entropy], dtype=torch.float64, requires_grad=True)
    old = torch.tensor([old_entropy], dtype=torch.float64)
    return dataclasses.replace(batch, entropy=ent, old_entropy=old)


def _expected(rows):
    loss, grad = zip(*rows)
    return torch.tensor(loss, dtype=torch.float64), torch.tensor(grad, dtype=torch.float64)


@pytest.mark.parametrize("name, rows", [("gppo_erc", GPPO_ERC_EXPECTED), ("grpo_erc", GRPO_ERC_EXPECTED)])
def test_erc_golden(make_golden, grad_of, name, rows):
    batch = _with_entropies(make_golden(), ENTROPY, [1.0] * 10)
    out = get_loss(name)(batch)
    loss, grad = _expected(rows)
    torch.testing.assert_close(out.per_token[0], loss)
    torch.testing.assert_close(grad_of(out.per_token, batch)[0], grad)
    assert out.metrics["entropy_mask_frac"].item() == pytest.approx(len(OUT_OF_BAND) / N)
    assert out.metrics["dual_clip_frac"].item() == pytest.approx(1 / N)
    # the entropies only choose tokens: no gradient reaches them
    (ent_grad,) = torch.autograd.grad(out.per_token.sum(), batch.entropy, allow_unused=True)
    assert ent_grad is None


def test_out_of_band_tokens_stay_in_the_token_mean_denominator(make_golden):
    batch = _with_entropies(make_golden(), ENTROPY, [1.0] * 10)
    out = get_loss("gppo_erc")(batch)
    loss = aggregate(out.per_token, batch.mask, "token_mean")
    (grad,) = torch.autograd.grad(loss, batch.logp)
    _, per_token_grad = _expected(GPPO_ERC_EXPECTED)
    torch.testing.assert_close(grad[0], per_token_grad / N)  # divided by all 9 tokens, not the 6 in the band
    torch.testing.assert_close(loss, torch.tensor(sum(v for v, _ in GPPO_ERC_EXPECTED) / N, dtype=torch.float64))


@pytest.mark.parametrize("low, high", [(0.95, 1.05), (0.8, 1.2)])
def test_gradient_is_the_base_gradient_inside_the_band(make_random, grad_of, low, high):
    batch = make_random(B=8, T=12, spread=0.6, entropy=True)
    gen = torch.Generator().manual_seed(3)
    old = batch.entropy.detach() / (0.75 + 0.5 * torch.rand(batch.entropy.shape, generator=gen, dtype=torch.float64))
    batch = dataclasses.replace(batch, old_entropy=old)
    rho = (batch.entropy.detach() + 1e-8) / (old + 1e-8)
    band = (rho > low) & (rho < high)
    m = batch.mask.bool()
    assert (band & m).any() and (~band & m).any()  # both sides exercised
    for erc, base in (("gppo_erc", get_loss("gppo")), ("grpo_erc", get_loss("dapo", clip_ratio_c=10.0))):
        out = get_loss(erc, entropy_mask_low=low, entropy_mask_high=high)(batch)
        base_out = base(batch)
        torch.testing.assert_close(out.per_token, base_out.per_token, rtol=0, atol=0)  # same values
        expected = torch.where(band, grad_of(base_out.per_token, batch), 0.0)
        torch.testing.assert_close(grad_of(out.per_token, batch), expected, rtol=0, atol=0)
        assert out.metrics["entropy_mask_frac"].item() == pytest.approx(((~band) & m).sum().item() / m.sum().item())


def test_open_band_gppo_erc_is_ce_gppo_with_unit_betas(make_random, make_golden, grad_of):
    for batch in (make_random(spread=0.8, entropy=True), make_golden(entropy=True)):
        old = torch.rand(batch.logp.shape, dtype=torch.float64) * 3
        batch = dataclasses.replace(batch, old_entropy=old)
        erc = get_loss("gppo_erc", entropy_mask_low=0.0, entropy_mask_high=math.inf)(batch)
        ce = get_loss("ce_gppo", beta1=1.0, beta2=1.0, clip_ratio_c=10.0)(batch)
        torch.testing.assert_close(erc.per_token, ce.per_token, rtol=0, atol=0)
        torch.testing.assert_close(grad_of(erc.per_token, batch), grad_of(ce.per_token, batch), rtol=0, atol=0)
        assert erc.metrics["entropy_mask_frac"].item() == 0.0


def test_defaults_follow_the_released_recipes():
    grpo_erc, gppo_erc = get_loss("grpo_erc"), get_loss("gppo_erc")
    assert (grpo_erc.eps_low, grpo_erc.eps_high, grpo_erc.clip_ratio_c) == (0.2, 0.28, 10.0)
    assert (gppo_erc.eps_low, gppo_erc.eps_high, gppo_erc.clip_ratio_c) == (0.2, 0.2, 10.0)
    for loss in (grpo_erc, gppo_erc):
        assert (loss.entropy_mask_low, loss.entropy_mask_high) == (0.95, 1.05)
        assert loss.needs_old_entropy and loss.default_agg == "token_mean"
    assert not get_loss("grpo").needs_old_entropy
    assert get_loss("entropy_reg", base="gppo_erc").needs_old_entropy


@pytest.mark.parametrize(
    "params, message",
    [
        ({"entropy_mask_low": 1.0}, "entropy_mask_low must be in [0, 1)"),
        ({"entropy_mask_high": 0.99}, "entropy_mask_high must be in (1, inf]"),
        ({"entropy_mask_low": "x"}, "entropy_mask_low must be a number"),
    ],
)
def test_bad_band_is_refused(params, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        get_loss("gppo_erc", **params)


def test_missing_entropies_are_refused(make_golden):
    with pytest.raises(ValueError, match="old_entropy"):
        get_loss("grpo_erc")(make_golden(entropy=True))
