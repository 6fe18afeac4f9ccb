"""DAPO: the same clip as GRPO with a wider upper bound ("clip-higher") and token_mean."""

import pytest
import torch

from algorithms import PolicyBatch, aggregate, get_loss


def _one_token(r: float, adv: float) -> PolicyBatch:
    logp = torch.tensor([[r]], dtype=torch.float64).log().requires_grad_()
    return PolicyBatch(
        logp,
        torch.zeros(1, 1, dtype=torch.float64),
        torch.tensor([adv], dtype=torch.float64),
        torch.ones(1, 1),
    )


def test_dapo_defaults_and_reduction():
    loss_fn = get_loss("dapo")
    assert (loss_fn.eps_low, loss_fn.eps_high, loss_fn.clip_ratio_c) == (0.2, 0.28, None)
    assert loss_fn.default_agg == "token_mean"


@pytest.mark.parametrize(
    "r, adv, loss, grad",
    [
        (1.25, 1.0, -1.25, -1.25),  # inside [0.8, 1.28]: GRPO (1.2) would clip this token, DAPO does not
        (1.5, 1.0, -1.28, 0.0),  # above 1.28: clipped at the higher bound
        (0.5, -1.0, 0.8, 0.0),  # the lower bound is unchanged
        (0.9, -2.0, 1.8, 1.8),  # inside: -A r, gradient -A r
    ],
)
def test_dapo_clip_higher(r, adv, loss, grad):
    batch = _one_token(r, adv)
    out = get_loss("dapo")(batch)
    (g,) = torch.autograd.grad(out.per_token.sum(), batch.logp)
    assert out.per_token.item() == pytest.approx(loss)
    assert g.item() == pytest.approx(grad)


def test_dapo_with_grpo_eps_equals_grpo(make_random, grad_of):
    batch = make_random(spread=0.5)
    dapo = get_loss("dapo", eps_high=0.2)(batch)
    grpo = get_loss("grpo")(batch)
    torch.testing.assert_close(dapo.per_token, grpo.per_token, rtol=0, atol=0)
    torch.testing.assert_close(grad_of(dapo.per_token, batch), grad_of(grpo.per_token, batch), rtol=0, atol=0)


def test_dapo_token_mean_weighs_tokens_not_answers():
    # two answers, lengths 1 and 3, per-token losses 4 and 1: token mean (4+3)/4, sequence mean (4+1)/2
    per_token = torch.tensor([[4.0, 0, 0], [1.0, 1.0, 1.0]])
    mask = torch.tensor([[1.0, 0, 0], [1, 1, 1]])
    assert aggregate(per_token, mask, get_loss("dapo").default_agg).item() == pytest.approx(7 / 4)
    assert aggregate(per_token, mask, get_loss("grpo").default_agg).item() == pytest.approx(5 / 2)
