"""Loss parameters are checked as Python floats but used in float32: the shared range check.

A value float64 holds but float32 does not (1e300 -> inf, 1e-40 -> a denormal whose inverse is inf)
used to pass `__post_init__` and fail at the first update (a clamp's overflow error, or inf x 0 = nan
on every token). Each loss now refuses it when it is built; the edges of the allowed range must give
finite losses and gradients in float32.
"""

import pytest
import torch

from algorithms import PolicyBatch, float32_safe, get_loss


@pytest.mark.parametrize(
    "name, params, key",
    [
        ("clip_cov", {"eps_low": 1e300, "eps_high": 1e300}, "eps_low"),
        ("sapo", {"tau_pos": 1e300}, "tau_pos"),
        ("sapo", {"tau_pos": 1e-40, "tau_neg": 1e-40}, "tau_pos"),
        ("kl_cov", {"coef": 1e300, "kl_cov_ratio": 1.0}, "coef"),
        ("ce_gppo", {"beta1": 1e40}, "beta1"),
        ("cispo", {"eps_high": 1e-35}, "eps_high"),
        ("grpo", {"clip_ratio_c": 1e39}, "clip_ratio_c"),
        ("entropy_reg", {"coef": 1e31}, "coef"),
    ],
)
def test_values_float32_cannot_hold_are_refused_when_built(name, params, key):
    with pytest.raises(ValueError, match=rf"{key}=.* out of float32's safe range") as info:
        get_loss(name, **params)
    assert "\n" not in str(info.value)


def test_the_range_rule():
    assert float32_safe(0.0) and float32_safe(1e-30) and float32_safe(-1e30) and float32_safe(2.0)
    assert not float32_safe(1e31) and not float32_safe(9e-31) and not float32_safe(-1e300)


def _float32_batch() -> PolicyBatch:
    """[2, 4] float32 batch, off-policy (ratios e^-1 .. e^1), advantages of both signs, one masked token."""
    logp = torch.tensor([[-1.0, -0.5, -2.0, -3.0], [-0.2, -1.5, -0.1, -4.0]], requires_grad=True)
    old_logp = torch.tensor([[-2.0, -0.5, -1.0, -3.0], [-0.4, -0.5, -1.1, -4.0]])
    advantages = torch.tensor([1.0, -1.0])
    mask = torch.tensor([[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
    return PolicyBatch(logp=logp, old_logp=old_logp, advantages=advantages, mask=mask)


@pytest.mark.parametrize(
    "name, params",
    [
        ("sapo", {"tau_pos": 1e-30, "tau_neg": 1e-30}),  # 4 / tau = 4e30: finite
        ("sapo", {"tau_pos": 1e30, "tau_neg": 1e30}),
        ("clip_cov", {"eps_low": 1e30, "eps_high": 1e30}),
        ("kl_cov", {"coef": 1e30, "kl_cov_ratio": 1.0}),
        ("cispo", {"eps_low": 1e30, "eps_high": 1e-30}),
    ],
)
def test_the_edges_of_the_range_compute_finite_losses_in_float32(name, params):
    batch = _float32_batch()
    out = get_loss(name, **params)(batch)
    (grad,) = torch.autograd.grad(out.per_token.sum(), batch.logp)
    assert out.per_token.dtype == torch.float32
    assert torch.isfinite(out.per_token).all() and torch.isfinite(grad).all()
