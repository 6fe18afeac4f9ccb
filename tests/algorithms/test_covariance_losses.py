"""Clip-Cov and KL-Cov (arXiv 2505.22617): golden values by hand, gradients against the formulas,
and agreement with the published computation (as verl's clip_cov / kl_cov do it, re-derived here in
NumPy from the paper's formulas) on random tensors to 1e-6."""

import math

import numpy as np
import pytest
import torch

from algorithms import PolicyBatch, aggregate, get_loss

# One response of 4 tokens. logp and A were picked so that the covariance terms are round:
# mean A = 0, mean logp = -1.4, so cov_t = A_t (logp_t + 1.4) = [2.6, 0.6, 0.9, 3.2].
LOGP = [-0.1, -2.0, -0.5, -3.0]
RATIO = [1.1, 1.0, 1.5, 0.5]  # token 2 (A > 0) and token 3 (A < 0) leave PPO's [0.8, 1.2]
ADV = [2.0, -1.0, 1.0, -2.0]


def _golden() -> PolicyBatch:
    logp = torch.tensor([LOGP], dtype=torch.float64, requires_grad=True)
    old = torch.tensor([[lp - math.log(r) for lp, r in zip(LOGP, RATIO)]], dtype=torch.float64)
    return PolicyBatch(logp, old, torch.tensor([ADV], dtype=torch.float64), torch.ones(1, 4, dtype=torch.float64))


def test_clip_cov_golden(grad_of):
    batch = _golden()
    out = get_loss("clip_cov", eps_low=0.2, eps_high=0.2)(batch)
    # candidates: 1 < cov < 5 and not cut by PPO's clip -> token 0 (2.6) only; token 3 (3.2) is cut
    # by the clip already. Budget max(floor(2e-4 * 4), 1) = 1, so token 0 is taken out.
    # others: token 1 inside (loss -A r = 1, grad -A r = 1), token 2 clipped high (-1.2, grad 0),
    # token 3 clipped low (-A 0.8 = 1.6, grad 0)
    torch.testing.assert_close(out.per_token, torch.tensor([[0.0, 1.0, -1.2, 1.6]], dtype=torch.float64))
    torch.testing.assert_close(grad_of(out.per_token, batch), torch.tensor([[0.0, 1.0, 0.0, 0.0]], dtype=torch.float64))
    m = {k: v.item() for k, v in out.metrics.items()}
    assert m["cov_clip_frac"] == pytest.approx(0.25)
    assert (m["clip_frac_high"], m["clip_frac_low"]) == pytest.approx((0.25, 0.25))
    # GRPO on the same tokens keeps token 0: loss -2.2, gradient -2.2
    grpo = get_loss("grpo")(batch)
    assert grpo.per_token[0, 0].item() == pytest.approx(-2.2)


def test_clip_cov_bounds_decide_the_candidates(grad_of):
    batch = _golden()
    # bounds (0.5, 1.0): tokens 1 (0.6) and 2 (0.9) qualify by covariance, token 2 is cut by the clip
    out = get_loss("clip_cov", clip_cov_lb=0.5, clip_cov_ub=1.0, clip_cov_ratio=1.0, eps_low=0.2, eps_high=0.2)(batch)
    grad = grad_of(out.per_token, batch)[0].tolist()
    assert grad == pytest.approx([-2.2, 0.0, 0.0, 0.0])  # token 1 detached, token 0 keeps -A r
    assert out.metrics["cov_clip_frac"].item() == pytest.approx(0.25)


def test_clip_cov_draws_budget_many_candidates_at_random():
    gen = torch.Generator().manual_seed(0)
    B, T = 8, 250  # 2000 tokens: budget max(floor(0.01 * 2000), 1) = 20
    logp = (-3 * torch.rand(B, T, generator=gen, dtype=torch.float64)).requires_grad_()
    adv = torch.randn(B, T, generator=gen, dtype=torch.float64) * 3
    batch = PolicyBatch(logp, logp.detach(), adv, torch.ones(B, T))  # on-policy: nothing cut by the clip
    loss_fn = get_loss("clip_cov", clip_cov_ratio=0.01)
    cov = (adv - adv.mean()) * (logp.detach() - logp.detach().mean())
    candidates = (cov > 1) & (cov < 5)
    assert candidates.sum() > 100
    picks = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        out = loss_fn(batch)
        (grad,) = torch.autograd.grad(out.per_token.sum(), logp)
        chosen = grad == 0
        assert chosen.sum() == 20 and torch.all(candidates[chosen])
        picks.append(chosen)
    assert not torch.equal(picks[0], picks[1])  # a fresh draw each call
    torch.manual_seed(1)
    (again,) = torch.autograd.grad(loss_fn(batch).per_token.sum(), logp)
    assert torch.equal(again == 0, picks[0])  # the same seed draws the same tokens


def test_kl_cov_golden(grad_of):
    batch = _golden()
    out = get_loss("kl_cov")(batch)
    # k = max(floor(2e-4 * 4), 1) = 1: the largest covariance, token 3 (3.2), gets the penalty.
    # token 3: -A r + |log r| = 2 * 0.5 + ln 2; gradient -A r + sign(log r) = 1 - 1 = 0
    # the rest: -A r, gradient -A r (no clip: token 2 keeps its gradient at r = 1.5)
    loss = [[-2.2, 1.0, -1.5, 1.0 + math.log(2)]]
    grad = [[-2.2, 1.0, -1.5, 0.0]]
    torch.testing.assert_close(out.per_token, torch.tensor(loss, dtype=torch.float64))
    torch.testing.assert_close(grad_of(out.per_token, batch), torch.tensor(grad, dtype=torch.float64))
    m = {k: v.item() for k, v in out.metrics.items()}
    assert m["kl_cov_frac"] == pytest.approx(0.25)
    assert m["ppo_kl_abs"] == pytest.approx(sum(abs(math.log(r)) for r in RATIO) / 4)
    # measured against PPO's [0.8, 1.2]: token 2 would have been cut high, token 3 low
    assert (m["clip_frac_high"], m["clip_frac_low"]) == pytest.approx((0.25, 0.25))


def test_kl_cov_coefficient_scales_the_penalty(grad_of):
    batch = _golden()
    out = get_loss("kl_cov", coef=0.25, kl_cov_ratio=0.5)(batch)  # k = 2: tokens 3 (3.2) and 0 (2.6)
    grad = grad_of(out.per_token, batch)[0].tolist()
    assert grad == pytest.approx([-2.2 + 0.25, 1.0, -1.5, 1.0 - 0.25])


# ---- the published computation, in NumPy, on random tensors -----------------------------------------


def _numpy_inputs(seed: int, B: int = 6, T: int = 40):
    rng = np.random.default_rng(seed)
    old = -3 * rng.random((B, T))
    logp = old + 0.3 * rng.standard_normal((B, T))
    lengths = rng.integers(5, T + 1, B)
    mask = (np.arange(T)[None, :] < lengths[:, None]).astype(float)
    adv = np.repeat(rng.standard_normal(B)[:, None] * 2, T, axis=1)
    return logp, old, adv, mask


def _covariance(logp, adv, mask):
    valid = mask > 0
    return (adv - adv[valid].mean()) * (logp - logp[valid].mean())


def _reference_clip_cov(logp, old, adv, mask, ratio_share, lb, ub, eps=0.2):
    """Loss (token-mean) and d loss / d logp when every candidate fits the budget."""
    r = np.exp(logp - old)
    pg1, pg2 = -adv * r, -adv * np.clip(r, 1 - eps, 1 + eps)
    cov = _covariance(logp, adv, mask)
    candidates = (cov > lb) & (cov < ub) & (mask > 0) & ~(pg2 > pg1)
    assert 0 < candidates.sum() <= max(int(ratio_share * mask.sum()), 1)  # so the draw takes all of them
    keep = ~candidates
    per_token = np.maximum(pg1, pg2) * keep
    grad_token = np.where(pg1 >= pg2, -adv * r, 0.0) * keep  # the max picks the unclipped term
    n = mask.sum()
    return (per_token * mask).sum() / n, grad_token * mask / n


def _reference_kl_cov(logp, old, adv, mask, ratio_share, coef):
    r = np.exp(logp - old)
    cov = np.where(mask > 0, _covariance(logp, adv, mask), -np.inf).ravel()
    k = max(int(ratio_share * mask.sum()), 1)
    top = np.zeros(cov.shape, bool)
    top[np.argsort(-cov, kind="stable")[:k]] = True
    top = top.reshape(mask.shape)
    per_token = -adv * r + top * coef * np.abs(logp - old)
    grad_token = -adv * r + top * coef * np.sign(logp - old)
    n = mask.sum()
    return (per_token * mask).sum() / n, grad_token * mask / n


def _ours(name, arrays, **params):
    logp, old, adv, mask = (torch.tensor(a) for a in arrays)
    logp.requires_grad_()
    loss_fn = get_loss(name, **params)
    out = loss_fn(PolicyBatch(logp, old, adv, mask))
    value = aggregate(out.per_token, mask, loss_fn.default_agg)
    (grad,) = torch.autograd.grad(value, logp)
    return value.item(), grad.numpy()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_clip_cov_agrees_with_the_published_computation(seed):
    arrays = _numpy_inputs(seed)
    params = dict(clip_cov_ratio=0.2, clip_cov_lb=0.5, clip_cov_ub=1.5, eps_low=0.2, eps_high=0.2)
    value, grad = _ours("clip_cov", arrays, **params)
    ref_value, ref_grad = _reference_clip_cov(*arrays, params["clip_cov_ratio"], 0.5, 1.5)
    assert value == pytest.approx(ref_value, abs=1e-6)
    np.testing.assert_allclose(grad, ref_grad, atol=1e-6)


@pytest.mark.parametrize(("seed", "share", "coef"), [(0, 2e-4, 1.0), (1, 0.02, 1.0), (2, 0.1, 0.3)])
def test_kl_cov_agrees_with_the_published_computation(seed, share, coef):
    arrays = _numpy_inputs(seed)
    value, grad = _ours("kl_cov", arrays, kl_cov_ratio=share, coef=coef)
    ref_value, ref_grad = _reference_kl_cov(*arrays, share, coef)
    assert value == pytest.approx(ref_value, abs=1e-6)
    np.testing.assert_allclose(grad, ref_grad, atol=1e-6)


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("clip_cov", {"clip_cov_ratio": 0.0}, "clip_cov_ratio must be in"),
        ("clip_cov", {"clip_cov_lb": 5.0, "clip_cov_ub": 1.0}, "clip_cov_lb < clip_cov_ub"),
        ("kl_cov", {"kl_cov_ratio": 1.5}, "kl_cov_ratio must be in"),
        ("kl_cov", {"coef": -1.0}, "coef must be in"),
    ],
)
def test_covariance_losses_refuse_bad_values(name, params, match):
    with pytest.raises(ValueError, match=match):
        get_loss(name, **params)


def test_covariance_defaults():
    clip = get_loss("clip_cov")
    assert (clip.clip_cov_ratio, clip.clip_cov_lb, clip.clip_cov_ub, clip.default_agg) == (2e-4, 1.0, 5.0, "token_mean")
    assert clip.clip_bounds == (1.0, 1.0)  # the paper's recipes: PPO's range widened to [0, 2]
    kl = get_loss("kl_cov")
    assert (kl.kl_cov_ratio, kl.coef, kl.default_agg, kl.clip_bounds) == (2e-4, 1.0, "token_mean", None)
