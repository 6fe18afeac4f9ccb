"""The 80/20 rule's mask (algorithms.top_entropy): exactly the top share of the response tokens by entropy."""

import math

import pytest
import torch

from algorithms import aggregate, get_loss, top_entropy_mask


def test_mask_keeps_the_top_share_by_hand():
    # 10 response tokens with entropies 0.1 .. 1.0 (shuffled), 2 padded ones with huge junk entropy
    entropy = torch.tensor([[0.5, 0.9, 0.1, 1.0, 0.3, 0.7, 9.0], [0.2, 0.8, 0.4, 0.6, 9.0, 0.0, 0.0]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 0, 0, 0]])
    mask[1, 5] = 0
    # rho 0.2: ceil(0.2 * 10) = 2 tokens, entropies 1.0 and 0.9; padding never counts
    kept = top_entropy_mask(entropy, mask, 0.2)
    assert kept.nonzero().tolist() == [[0, 1], [0, 3]]
    # rho 0.25: ceil(2.5) = 3 tokens: 1.0, 0.9, 0.8
    assert top_entropy_mask(entropy, mask, 0.25).nonzero().tolist() == [[0, 1], [0, 3], [1, 1]]
    assert torch.equal(top_entropy_mask(entropy, mask, 1.0), mask.bool())  # rho 1: every token


def test_ties_at_the_threshold_all_pass_and_empty_masks_are_fine():
    entropy = torch.tensor([[1.0, 1.0, 1.0, 0.5]])
    assert top_entropy_mask(entropy, torch.ones(1, 4), 0.25).sum() == 3  # the three tied maxima
    assert top_entropy_mask(entropy, torch.zeros(1, 4), 0.2).sum() == 0


@pytest.mark.parametrize("rho", [0.2, 0.5])
def test_share_on_random_entropies(rho):
    gen = torch.Generator().manual_seed(0)
    entropy = torch.rand(16, 50, generator=gen)
    mask = (torch.arange(50) < torch.randint(1, 51, (16, 1), generator=gen)).float()
    kept = top_entropy_mask(entropy, mask, rho)
    n = int(mask.sum())
    assert int(kept.sum()) == math.ceil(rho * n)  # continuous values: no ties
    assert entropy[kept].min() >= entropy[mask.bool() & ~kept].max()


@pytest.mark.parametrize("bad", [0.0, 1.5, -0.2, True])
def test_bad_quantile_is_refused(bad):
    with pytest.raises(ValueError, match="top_entropy_quantile must be in"):
        top_entropy_mask(torch.ones(1, 2), torch.ones(1, 2), bad)


def test_gated_tokens_keep_their_place_in_the_denominator(make_random, grad_of):
    batch = make_random(B=4, T=10, entropy=True)
    gate = top_entropy_mask(batch.entropy, batch.mask, 0.2).double()  # [B, T]
    out = get_loss("grpo")(batch)
    ungated = grad_of(out.per_token, batch)  # [B, T] each token's own gradient
    loss = aggregate(out.per_token * gate, batch.mask, "token_mean")
    (grad,) = torch.autograd.grad(loss, batch.logp)
    assert 0 < gate.sum() < batch.mask.sum()
    torch.testing.assert_close(grad, ungated * gate / batch.mask.sum())  # divided by every token, not the kept
