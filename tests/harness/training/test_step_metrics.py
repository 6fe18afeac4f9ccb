"""Step metrics combine micro-batches and ranks exactly."""

import pytest
import torch

from harness.training.step_metrics import StepMetrics


def identity(tensor, op):
    return tensor


def test_weighted_means_maxima_and_derived_figures():
    m = StepMetrics()
    m.add_rollout(
        torch.tensor([1.0, 0.0, 0.0, 1.0]),
        torch.tensor([True, False, False, True]),
        torch.tensor([2, 3, 4, 3]),
        torch.tensor([False, False, True, False]),
        torch.ones(4, dtype=torch.bool),
        seconds=2.0,
    )
    m.add_loss_metrics({"clip_frac": torch.tensor(0.5), "ratio_max": torch.tensor(1.3)}, weight=10)
    m.add_loss_metrics({"clip_frac": torch.tensor(0.0), "ratio_max": torch.tensor(1.1)}, weight=30)
    m.add_update(0.2, 1.5, True)
    m.add_update(float("nan"), float("nan"), False)
    out = m.reduce(identity)
    assert out["reward_mean"] == 0.5 and out["reward_std"] == 0.5 and out["accuracy"] == 0.5
    assert out["response_length"] == 3.0 and out["truncated_frac"] == 0.25
    assert out["clip_frac"] == 0.125  # (0.5 * 10 + 0 * 30) / 40
    assert out["ratio_max"] == pytest.approx(1.3)
    assert out["loss"] == pytest.approx(0.2) and out["grad_norm"] == 1.5 and out["skipped_updates"] == 1
    assert out["rollout_tokens_per_s"] == 6.0  # 12 tokens in 2 s


def test_two_ranks_reduce_like_one():
    def rank(rewards):
        m = StepMetrics()
        n = len(rewards)
        m.add_rollout(
            torch.tensor(rewards),
            torch.tensor(rewards) > 0,
            torch.ones(n),
            torch.zeros(n, dtype=torch.bool),
            torch.ones(n, dtype=torch.bool),
            seconds=1.0,
        )
        return m

    a, b, whole = rank([1.0, 0.0]), rank([1.0, 1.0, 0.0, 1.0]), rank([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    # simulate the all-reduce over two ranks: sum (or max) of both ranks' tensors
    state = {}

    def fake_all_reduce(tensor, op):
        other = state["other"].pop(0)
        return tensor + other if op == "sum" else torch.maximum(tensor, other)

    captured = []
    b.reduce(lambda t, op: captured.append(t) or t)
    state["other"] = captured
    combined = a.reduce(fake_all_reduce)
    expected = whole.reduce(identity)
    for key in ("reward_mean", "reward_std", "accuracy"):
        assert abs(combined[key] - expected[key]) < 1e-9


def test_clipped_lp_shares_pool_micro_batches_skip_sequence_clips_and_follow_wrapped_losses():
    from algorithms import PolicyBatch, get_loss
    from harness.training.step_metrics import add_clipped_lp_shares

    def batch(old_p, ratio, adv):
        old_p, ratio = torch.tensor([old_p]), torch.tensor([ratio])
        return PolicyBatch(
            logp=(old_p * ratio).log(),
            old_logp=old_p.log(),
            advantages=torch.tensor([adv]),
            mask=torch.ones_like(old_p),
        )

    m = StepMetrics()
    ce = get_loss("ce_gppo").clip_bounds
    add_clipped_lp_shares(m, batch([0.3, 0.9, 0.5], [0.5, 0.5, 1.0], -1.0), ce, 0.5)  # clip-low: 1 LP of 2
    add_clipped_lp_shares(m, batch([0.1, 0.2], [0.6, 1.0], -1.0), ce, 0.5)  # clip-low: 1 LP of 1
    add_clipped_lp_shares(m, batch([0.1, 0.2], [1.5, 1.0], 1.0), ce, 0.5)  # clip-high: 1 LP of 1
    out = m.reduce(identity)
    assert out["clip_low_lp_share"] == pytest.approx(2 / 3) and out["clip_high_lp_share"] == 1.0

    untouched = StepMetrics()
    add_clipped_lp_shares(untouched, batch([0.1], [1.5], 1.0), get_loss("gspo").clip_bounds, 0.5)
    assert "clip_high_lp_share" not in untouched.reduce(identity)

    # entropy_reg around a clipped loss keeps that loss's clip range, hence its clip-side metrics
    wrapped = StepMetrics()
    bounds = get_loss("entropy_reg", base="ce_gppo").clip_bounds
    add_clipped_lp_shares(wrapped, batch([0.1, 0.2], [1.5, 1.0], 1.0), bounds, 0.5)
    assert wrapped.reduce(identity)["clip_high_lp_share"] == 1.0
