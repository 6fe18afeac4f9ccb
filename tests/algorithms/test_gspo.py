"""GSPO: clipping on the sequence ratio, and the token form's gradient equals the sequence objective's."""

import math

import pytest
import torch

from algorithms import PolicyBatch, aggregate, get_loss


def _sequence_objective(batch: PolicyBatch, eps_low: float, eps_high: float) -> torch.Tensor:
    """The paper's sequence-level loss, written directly: mean_i max(-A_i s_i, -A_i clip(s_i))."""
    m = batch.mask.bool()
    log_ratio = torch.where(m, batch.logp - batch.old_logp, 0.0)
    s = torch.exp(log_ratio.sum(-1) / m.sum(-1))  # [B]  (pi/pi_old)^(1/|y|), with gradient
    adv = batch.advantages
    return torch.maximum(-adv * s, -adv * s.clamp(1 - eps_low, 1 + eps_high)).mean()


def _golden_gspo_batch() -> PolicyBatch:
    # old_logp = 0, so logp is the token log-ratio; the 4th sequence's last token is masked junk
    logp = torch.tensor(
        [[0.1, 0.2, 0.3], [0.3, -0.3, -math.inf], [-0.2, -0.3, -0.4], [-0.2, -0.3, -0.4]], dtype=torch.float64
    ).requires_grad_()
    old = torch.tensor([[0.0, 0, 0], [0, 0, -math.inf], [0, 0, 0], [0, 0, 0]], dtype=torch.float64)
    mask = torch.tensor([[1.0, 1, 1], [1, 1, 0], [1, 1, 1], [1, 1, 1]])
    adv = torch.tensor([1.0, -1.0, 1.0, -1.0], dtype=torch.float64)
    return PolicyBatch(logp, old, adv, mask)


def test_gspo_golden(grad_of):
    batch = _golden_gspo_batch()
    out = get_loss("gspo", eps_low=0.1, eps_high=0.1)(batch)
    s2 = math.exp(-0.3)  # 0.741
    # seq 0: s = e^0.2 = 1.221 > 1.1, A +1 -> clipped: -1.1 on each token, no gradient
    # seq 1: s = e^0 = 1, A -1 -> inside: loss 1 per token, gradient -A s = 1
    # seq 2: s = 0.741 < 0.9, A +1 -> PPO does not clip this side: -s per token, gradient -s
    # seq 3: s = 0.741 < 0.9, A -1 -> clipped: 0.9 per token, no gradient
    loss = [[-1.1] * 3, [1.0, 1.0, 0.0], [-s2] * 3, [0.9] * 3]
    grad = [[0.0] * 3, [1.0, 1.0, 0.0], [-s2] * 3, [0.0] * 3]
    torch.testing.assert_close(out.per_token, torch.tensor(loss, dtype=torch.float64))
    torch.testing.assert_close(grad_of(out.per_token, batch), torch.tensor(grad, dtype=torch.float64))
    m = {k: v.item() for k, v in out.metrics.items()}
    assert m["clip_frac_high"] == pytest.approx(3 / 11) and m["clip_frac_low"] == pytest.approx(3 / 11)
    assert m["ratio_max"] == pytest.approx(math.exp(0.2))


@pytest.mark.parametrize("eps", [(0.1, 0.1), (3e-4, 4e-4), (0.02, 0.05)])
def test_gspo_gradient_matches_sequence_objective(make_random, eps):
    batch = _golden_gspo_batch()
    for b in (batch, make_random(B=10, T=7, spread=0.15, per_seq_adv=True, seed=3)):
        out = get_loss("gspo", eps_low=eps[0], eps_high=eps[1])(b)
        token_form = aggregate(out.per_token, b.mask, "seq_mean_token_mean")
        reference = _sequence_objective(b, *eps)
        torch.testing.assert_close(token_form, reference)
        (g_token,) = torch.autograd.grad(token_form, b.logp)
        (g_seq,) = torch.autograd.grad(reference, b.logp)
        torch.testing.assert_close(g_token, g_seq)
        assert torch.all(g_token[~b.mask.bool()] == 0)


def test_gspo_defaults():
    loss_fn = get_loss("gspo")
    assert (loss_fn.eps_low, loss_fn.eps_high, loss_fn.default_agg) == (3e-4, 4e-4, "seq_mean_token_mean")
