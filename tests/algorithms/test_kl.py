"""KL estimators k1, k2, k3 against a reference policy."""

import math

import pytest
import torch

from algorithms import kl_penalty


def test_kl_golden():
    # pi = 0.5, pi_ref = 0.25 on the sampled token: d = log 2
    logp = torch.tensor([[math.log(0.5), 0.0]], dtype=torch.float64, requires_grad=True)
    ref = torch.tensor([[math.log(0.25), 5.0]], dtype=torch.float64)
    mask = torch.tensor([[1, 0]])
    d = math.log(2)
    assert kl_penalty(logp, ref, mask, "k1")[0].tolist() == pytest.approx([d, 0.0])
    assert kl_penalty(logp, ref, mask, "k2")[0].tolist() == pytest.approx([d * d / 2, 0.0])
    # k3 = exp(-d) + d - 1 = 0.5 + log 2 - 1
    k3 = kl_penalty(logp, ref, mask, "k3")
    assert k3[0].tolist() == pytest.approx([0.5 + d - 1, 0.0])
    (grad,) = torch.autograd.grad(k3.sum(), logp)
    assert grad[0].tolist() == pytest.approx([1 - math.exp(-d), 0.0])  # d k3 / d logp = 1 - exp(-d)


def test_k1_and_k3_are_unbiased_and_k3_nonnegative():
    gen = torch.Generator().manual_seed(0)
    logits, ref_logits = torch.randn(2, 16, generator=gen, dtype=torch.float64)
    logp, ref = torch.log_softmax(logits, -1), torch.log_softmax(ref_logits, -1)
    p = logp.exp()
    true_kl = (p * (logp - ref)).sum()
    mask = torch.ones(1, 16)
    for kind in ("k1", "k3"):  # exact expectation over every action, weighted by pi
        estimate = (p * kl_penalty(logp.unsqueeze(0), ref.unsqueeze(0), mask, kind)[0]).sum()
        torch.testing.assert_close(estimate, true_kl)
    assert torch.all(kl_penalty(logp.unsqueeze(0), ref.unsqueeze(0), mask, "k3") >= 0)


def test_unknown_estimator():
    x = torch.zeros(1, 2)
    with pytest.raises(ValueError, match="k1, k2, k3"):
        kl_penalty(x, x, x, "k4")
