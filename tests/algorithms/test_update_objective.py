"""What an update minimises (algorithms.update_objective): the NLL-on-positives and KL-to-reference terms against
hand-worked values and gradients, and their sum with the corrected, aggregated policy loss."""

import math

import pytest
import torch

from algorithms import PolicyBatch, UpdateObjective, get_loss, positive_nll, reference_kl

LOG2 = math.log(2)


def leaf(values):
    return torch.tensor(values, dtype=torch.float64).log().requires_grad_()


def close(tensor, expected):
    torch.testing.assert_close(tensor.detach(), torch.tensor(expected, dtype=tensor.dtype))


def test_positive_nll_golden_value_and_gradient():
    logp = leaf([[0.5, 0.25, 0.9], [0.125, 0.5, 0.5]])  # [2, 3]
    positive = torch.tensor([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])  # row 0 is rewarded (2 tokens), row 1 is not
    nll = positive_nll(logp, positive, "token_mean")
    assert float(nll.detach()) == pytest.approx((LOG2 + 2 * LOG2) / 2)  # -(log 0.5 + log 0.25) / 2
    (grad,) = torch.autograd.grad(nll, logp)
    close(grad, [[-0.5, -0.5, 0.0], [0.0, 0.0, 0.0]])  # -1 / N_+ on positive tokens
    # reduced over the whole mini-batch's positive tokens (8 on all ranks): this share is a quarter of the local mean
    assert float(positive_nll(logp.detach(), positive, "token_mean", num_tokens=8)) == pytest.approx(3 * LOG2 / 8)
    # seq_mean_token_mean: each positive response's mean NLL, averaged over the positive responses
    assert float(positive_nll(logp.detach(), positive, "seq_mean_token_mean")) == pytest.approx(1.5 * LOG2)


@pytest.mark.parametrize(
    ("estimator", "value", "slope"),
    [("k1", LOG2, 1.0), ("k2", LOG2**2 / 2, LOG2), ("k3", 0.5 + LOG2 - 1, 0.5)],  # d = log 2 on the first token
)
def test_reference_kl_golden_value_and_gradient(estimator, value, slope):
    logp = leaf([[0.5, 0.25, 0.9]])
    ref = torch.tensor([[0.25, 0.25, 0.1]], dtype=torch.float64).log()  # d = log 2, 0, (padding)
    mask = torch.tensor([[1.0, 1.0, 0.0]])
    kl = reference_kl(logp, ref, mask, estimator, "token_mean")
    assert float(kl.detach()) == pytest.approx(value / 2)  # the second token has d = 0 and k = 0
    (grad,) = torch.autograd.grad(kl, logp)
    # d k1 / dd = 1, d k2 / dd = d, d k3 / dd = 1 - e^-d; each over N = 2 tokens; d = 0 has slope 0 but for k1
    second = 0.5 if estimator == "k1" else 0.0
    close(grad, [[slope / 2, second, 0.0]])


def objective_batch(entropy=None):
    """One row, r = 1 everywhere (logp = old_logp), A = 2, the third token padding."""
    logp = leaf([[0.5, 0.25, 0.8]])
    return PolicyBatch(
        logp=logp,
        old_logp=logp.detach().clone(),
        advantages=torch.tensor([2.0], dtype=torch.float64),
        mask=torch.tensor([[1.0, 1.0, 0.0]], dtype=torch.float64),
        ref_logp=torch.tensor([[0.25, 0.25, 0.1]], dtype=torch.float64).log(),
        entropy=entropy,
    )


def test_the_objective_sums_the_corrected_loss_and_the_terms():
    batch = objective_batch()
    objective = UpdateObjective(get_loss("grpo"), "token_mean", positive_nll_coef=0.1, kl_coef=0.2, kl_estimator="k1")
    weights = torch.tensor([[1.5, 0.5, 0.0]], dtype=torch.float64)
    positive = torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64)
    out = objective(batch, {}, weights=weights, positive_mask=positive)
    # grpo at r = 1: -A r = -2 per token; weighted -3, -1; token mean -2. NLL: -log 0.5 over 1 token. KL k1: log 2 / 2
    assert float(out.total.detach()) == pytest.approx(-2 + 0.1 * LOG2 + 0.2 * LOG2 / 2)
    assert {k: float(v) for k, v in out.terms.items()} == pytest.approx({"positive_nll": LOG2, "kl_ref": LOG2 / 2})
    close(out.policy.per_token, [[-2.0, -2.0, 0.0]])  # the loss's own, before the weights
    (grad,) = torch.autograd.grad(out.total, batch.logp)
    # policy: -A w / N = -w; NLL: -0.1 / N_+ on the positive token; KL: +0.2 / N on each counted token
    close(grad, [[-1.5 - 0.1 + 0.1, -0.5 + 0.1, 0.0]])


def test_terms_are_off_without_their_coefficient_or_input():
    batch = objective_batch()
    plain = UpdateObjective(get_loss("grpo"), "token_mean")
    out = plain(batch, {}, positive_mask=torch.ones(1, 3, dtype=torch.float64))
    assert out.terms == {} and float(out.total.detach()) == pytest.approx(-2.0)
    no_ref = UpdateObjective(get_loss("grpo"), "token_mean", kl_coef=0.5)  # a batch without ref_logp: no KL
    batch_without_ref = PolicyBatch(batch.logp, batch.old_logp, batch.advantages, batch.mask)
    assert no_ref(batch_without_ref, {}).terms == {}


def test_global_counts_scale_every_term_alike():
    batch = objective_batch()
    objective = UpdateObjective(get_loss("grpo"), "token_mean", positive_nll_coef=0.1, kl_coef=0.2, kl_estimator="k1")
    positive = torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64)
    local = objective(batch, {}, positive_mask=positive)
    # the mini-batch on all ranks has 4 tokens, 2 of them positive: this micro-batch's share is half of each
    shared = objective(batch, {"num_tokens": 4}, positive_mask=positive, positive_counts={"num_tokens": 2})
    assert float(shared.total.detach()) == pytest.approx(float(local.total.detach()) / 2)


def test_the_entropy_bonus_is_part_of_the_loss_and_gets_the_weights():
    """entropy_reg subtracts coef * H_t from the per-token loss, so the correction's weight multiplies it too."""
    entropy = torch.tensor([[0.7, 0.3, 0.0]], dtype=torch.float64, requires_grad=True)
    batch = objective_batch(entropy)
    objective = UpdateObjective(get_loss("entropy_reg", base="grpo", coef=0.01), "token_mean")
    weights = torch.tensor([[1.5, 0.5, 0.0]], dtype=torch.float64)
    out = objective(batch, {}, weights=weights)
    assert float(out.total.detach()) == pytest.approx((1.5 * (-2 - 0.007) + 0.5 * (-2 - 0.003)) / 2)
    (grad,) = torch.autograd.grad(out.total, entropy)
    close(grad, [[-0.01 * 1.5 / 2, -0.01 * 0.5 / 2, 0.0]])  # -coef w / N
