"""entropy_reg: base loss minus coef * entropy, wrapping any other loss."""

import pytest
import torch

from algorithms import LOSSES, get_loss


@pytest.mark.parametrize("base", [name for name in LOSSES if name != "entropy_reg"])
def test_entropy_reg_is_base_minus_coef_entropy(make_random, base):
    batch = make_random(entropy=True, spread=0.5)
    coef = 0.01
    wrapped = get_loss("entropy_reg", base=base, coef=coef)
    out = wrapped(batch)
    base_out = get_loss(base)(batch)
    m = batch.mask.bool()
    torch.testing.assert_close(out.per_token, torch.where(m, base_out.per_token - coef * batch.entropy, 0.0))
    assert wrapped.default_agg == get_loss(base).default_agg
    (g_ent, g_logp) = torch.autograd.grad(out.per_token.sum(), (batch.entropy, batch.logp), retain_graph=True)
    torch.testing.assert_close(g_ent, torch.where(m, -coef, 0.0).double())  # d loss / d H = -coef on counted tokens
    (g_base,) = torch.autograd.grad(base_out.per_token.sum(), batch.logp)
    torch.testing.assert_close(g_logp, g_base)
    assert out.metrics["entropy"].item() == pytest.approx(batch.entropy[m].mean().item())
    assert base_out.metrics.keys() <= out.metrics.keys()


def test_entropy_reg_passes_base_parameters():
    loss_fn = get_loss("entropy_reg", base="ce_gppo", coef=0.0, beta1=0.75, eps_high=0.28)
    assert (loss_fn.base.beta1, loss_fn.base.eps_high, loss_fn.coef) == (0.75, 0.28, 0.0)
    default = get_loss("entropy_reg")
    assert (default.base.name, default.coef) == ("grpo", 1e-3)


def test_entropy_reg_errors(make_random):
    with pytest.raises(ValueError, match="batch.entropy"):
        get_loss("entropy_reg")(make_random(entropy=False))
    with pytest.raises(ValueError, match=r"coef must be in \[0, inf\)"):
        get_loss("entropy_reg", coef=-1e-3)
    with pytest.raises(ValueError, match="beta1") as err:
        get_loss("entropy_reg", base="grpo", beta1=0.5)  # grpo has no beta1
    assert "base, coef" in str(err.value) and "eps_low" in str(err.value)
    with pytest.raises(ValueError, match="unknown loss 'ppo'"):
        get_loss("entropy_reg", base="ppo")
