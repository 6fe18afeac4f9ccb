"""GMPO (geo_mean, arXiv 2507.20673) and SAPO (arXiv 2511.20347): golden values by hand, gradients
against the formulas, and agreement with the published computation re-derived in NumPy."""

import math

import numpy as np
import pytest
import torch

from algorithms import PolicyBatch, aggregate, get_loss


def _two_sequences() -> PolicyBatch:
    # old_logp = 0, so logp is the token log-ratio; the second sequence's last token is masked junk
    logp = torch.tensor([[0.1, 0.6, -0.5], [0.2, -0.7, -math.inf]], dtype=torch.float64, requires_grad=True)
    old = torch.tensor([[0.0, 0, 0], [0, 0, -math.inf]], dtype=torch.float64)
    mask = torch.tensor([[1.0, 1, 1], [1, 1, 0]], dtype=torch.float64)
    return PolicyBatch(logp, old, torch.tensor([1.0, -1.0], dtype=torch.float64), mask)


def test_geo_mean_golden(grad_of):
    batch = _two_sequences()
    out = get_loss("geo_mean")(batch)  # log-space clip 0.4 / 0.4
    # seq 0, A = +1: l = [0.1, min(0.6, 0.4), -0.5 (A > 0 is not clipped below)] -> mean 0, s = 1, L = -1
    # seq 1, A = -1: l = [0.2, max(-0.7, -0.4)] -> mean -0.1, s = e^-0.1, L = +e^-0.1
    s1 = math.exp(-0.1)
    torch.testing.assert_close(out.per_token, torch.tensor([[-1.0] * 3, [s1, s1, 0.0]], dtype=torch.float64))
    value = aggregate(out.per_token, batch.mask, "seq_mean_token_mean")
    assert value.item() == pytest.approx((-1.0 + s1) / 2)
    # d L_i / d logp_t = -A_i s_i / |y_i| on unclipped tokens, 0 on clipped ones; grad_of sums the
    # per-token copies of L_i, i.e. |y_i| times that: -A_i s_i
    grad = [[-1.0, 0.0, -1.0], [s1, 0.0, 0.0]]
    torch.testing.assert_close(grad_of(out.per_token, batch), torch.tensor(grad, dtype=torch.float64))
    m = {k: v.item() for k, v in out.metrics.items()}
    assert (m["clip_frac_high"], m["clip_frac_low"]) == pytest.approx((1 / 5, 1 / 5))
    assert m["seq_ratio_mean"] == pytest.approx((1.0 + s1) / 2)


def test_geo_mean_clip_bounds_are_the_log_range_as_ratio_widths():
    loss = get_loss("geo_mean", eps_low=0.4, eps_high=0.2)
    low, high = loss.clip_bounds
    assert 1 - low == pytest.approx(math.exp(-0.4)) and 1 + high == pytest.approx(math.exp(0.2))


def test_geo_mean_holds_an_exploding_token_at_the_bound():
    # a rewarded response whose first token's ratio exploded to e^3: GMPO holds that token's
    # log-ratio at eps_high before the mean over the 4 tokens, so the sequence ratio is e^(0.875 / 4)
    logp = torch.tensor([[3.0, 0.0, 0.0, 0.0]], dtype=torch.float64, requires_grad=True)
    ones = torch.ones(1, 4, dtype=torch.float64)
    batch = PolicyBatch(logp, torch.zeros_like(ones), torch.tensor([1.0], dtype=torch.float64), ones)
    out = get_loss("geo_mean", eps_low=0.4, eps_high=0.875)(batch)
    assert out.metrics["clip_frac_high"].item() == pytest.approx(0.25)
    assert out.per_token[0, 0].item() == pytest.approx(-math.exp(0.875 / 4))


def test_sapo_golden(grad_of):
    r = [1.0, 2.0, 0.5, 1.0]
    adv = [1.0, 1.0, -1.0, -2.0]
    logp = torch.tensor([[math.log(x) for x in r]], dtype=torch.float64, requires_grad=True)
    batch = PolicyBatch(
        logp,
        torch.zeros(1, 4, dtype=torch.float64),
        torch.tensor([adv], dtype=torch.float64),
        torch.ones(1, 4, dtype=torch.float64),
    )
    out = get_loss("sapo")(batch)

    def sig(x):
        return 1 / (1 + math.exp(-x))

    loss, grad = [], []
    for ratio, a in zip(r, adv):
        tau = 1.0 if a > 0 else 1.05
        g = sig(tau * (ratio - 1))
        loss.append(-g * 4 / tau * a)  # -f_tau(r) A
        grad.append(-a * 4 * g * (1 - g) * ratio)  # d/dlogp = d f/dr * r
    torch.testing.assert_close(out.per_token, torch.tensor([loss], dtype=torch.float64))
    torch.testing.assert_close(grad_of(out.per_token, batch), torch.tensor([grad], dtype=torch.float64))
    assert loss[0] == pytest.approx(-2.0) and grad[0] == pytest.approx(-1.0)  # on-policy: -2A/tau, slope -A
    assert loss[3] == pytest.approx(4 / 1.05)
    m = {k: v.item() for k, v in out.metrics.items()}
    # against PPO's [0.8, 1.2]: r = 2 (A > 0) would be cut high, r = 0.5 (A < 0) low
    assert (m["clip_frac_high"], m["clip_frac_low"]) == pytest.approx((0.25, 0.25))


def test_sapo_gradient_fades_smoothly_where_ppo_cuts_it(grad_of):
    ratios = torch.tensor([[1.1, 1.19, 1.21, 1.5, 3.0, 6.0]], dtype=torch.float64)
    logp = ratios.log().requires_grad_()
    batch = PolicyBatch(logp, torch.zeros_like(ratios), torch.ones(1, dtype=torch.float64), torch.ones_like(ratios))
    sapo = grad_of(get_loss("sapo", tau_pos=2.0)(batch).per_token, batch)[0]
    grpo = grad_of(get_loss("grpo")(batch).per_token, batch)[0]
    assert torch.all(grpo[2:] == 0) and torch.all(grpo[:2] != 0)  # PPO: a cliff at 1.2
    weights = (-sapo / ratios[0]).tolist()  # d f / d r, decreasing and never zero
    assert all(a > b > 0 for a, b in zip(weights, weights[1:]))
    assert weights[1] / weights[2] == pytest.approx(1.0, abs=0.05)  # no cliff at 1.2


def test_sapo_temperatures_must_be_positive():
    with pytest.raises(ValueError, match="tau_neg must be in"):
        get_loss("sapo", tau_neg=0.0)
    sapo = get_loss("sapo")
    assert (sapo.tau_pos, sapo.tau_neg, sapo.default_agg, sapo.clip_bounds) == (1.0, 1.05, "seq_mean_token_mean", None)
    gmpo = get_loss("geo_mean")
    assert (gmpo.eps_low, gmpo.eps_high, gmpo.default_agg) == (0.4, 0.4, "seq_mean_token_mean")


# ---- the published computation, in NumPy, on random tensors -----------------------------------------


def _inputs(seed: int, B: int = 6, T: int = 30):
    rng = np.random.default_rng(seed)
    old = -3 * rng.random((B, T))
    logp = old + 0.4 * rng.standard_normal((B, T))
    lengths = rng.integers(3, T + 1, B)
    mask = (np.arange(T)[None, :] < lengths[:, None]).astype(float)
    adv = np.repeat(rng.standard_normal(B)[:, None], T, axis=1)
    return logp, old, adv, mask


def _reference_geo_mean(logp, old, adv, mask, eps_low, eps_high):
    """mean_i -A_i exp(mean_t l_t) and its gradient, written from the paper's objective."""
    d = logp - old
    s = np.sign(adv)
    clipped = np.clip(d, -eps_low, eps_high)
    kept = s * np.minimum(s * d, s * clipped)
    free = (s * d <= s * clipped).astype(float)  # the min took the unclipped log-ratio
    n = mask.sum(-1)
    seq_ratio = np.exp((kept * mask).sum(-1) / n)
    seq_adv = (adv * mask).sum(-1) / n
    value = np.mean(-seq_adv * seq_ratio)
    grad = (-seq_adv * seq_ratio / n)[:, None] * free * mask / len(n)
    return value, grad


def _reference_sapo(logp, old, adv, mask, tau_pos=1.0, tau_neg=1.05):
    r = np.exp(np.clip(logp - old, -20, 20))
    tau = np.where(adv > 0, tau_pos, tau_neg)
    g = 1 / (1 + np.exp(-tau * (r - 1)))
    per_token = -g * 4 / tau * adv
    grad_token = -adv * 4 * g * (1 - g) * r
    n = mask.sum(-1)
    value = np.mean((per_token * mask).sum(-1) / n)  # seq-mean-token-mean
    return value, grad_token * mask / n[:, None] / len(n)


def _ours(name, arrays, **params):
    logp, old, adv, mask = (torch.tensor(a) for a in arrays)
    logp.requires_grad_()
    loss_fn = get_loss(name, **params)
    value = aggregate(loss_fn(PolicyBatch(logp, old, adv, mask)).per_token, mask, loss_fn.default_agg)
    (grad,) = torch.autograd.grad(value, logp)
    return value.item(), grad.numpy()


@pytest.mark.parametrize(("seed", "eps"), [(0, (0.4, 0.4)), (1, (0.2, 0.2)), (2, (0.1, 0.3))])
def test_geo_mean_agrees_with_the_published_computation(seed, eps):
    arrays = _inputs(seed)
    value, grad = _ours("geo_mean", arrays, eps_low=eps[0], eps_high=eps[1])
    ref_value, ref_grad = _reference_geo_mean(*arrays, *eps)
    assert value == pytest.approx(ref_value, abs=1e-6)
    np.testing.assert_allclose(grad, ref_grad, atol=1e-6)


@pytest.mark.parametrize(("seed", "taus"), [(0, (1.0, 1.05)), (1, (0.5, 2.0)), (2, (3.0, 3.0))])
def test_sapo_agrees_with_the_published_computation(seed, taus):
    arrays = _inputs(seed)
    value, grad = _ours("sapo", arrays, tau_pos=taus[0], tau_neg=taus[1])
    ref_value, ref_grad = _reference_sapo(*arrays, *taus)
    assert value == pytest.approx(ref_value, abs=1e-6)
    np.testing.assert_allclose(grad, ref_grad, atol=1e-6)
