"""aggregate: hand-computed values per mode and invariance under micro-batch / rank splits."""

import pytest
import torch

from algorithms import AGG_MODES, aggregate, batch_counts, check_agg_mode

# rows: a 3-token answer (losses 1, 2, 3; junk 100 in its padding), a 1-token answer (4), an empty row
PER_TOKEN = torch.tensor([[1.0, 2.0, 3.0, 100.0], [4.0, 0, 0, 0], [7.0, 0, 0, 0]])
MASK = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]])


@pytest.mark.parametrize(
    "mode, kwargs, expected",
    [
        ("token_mean", {}, (1 + 2 + 3 + 4) / 4),
        ("seq_mean_token_mean", {}, (6 / 3 + 4 / 1) / 2),  # the empty row is not a sequence
        ("seq_mean_token_sum", {}, (6 + 4) / 2),
        ("seq_sum_norm", {}, (6 + 4) / (4 * 2)),  # L defaults to T = 4
        ("seq_sum_norm", {"max_len": 5}, (6 + 4) / (5 * 2)),
        ("token_mean", {"num_tokens": 8}, 10 / 8),
        ("seq_mean_token_mean", {"num_seqs": 4}, 6 / 4),
    ],
)
def test_aggregate_golden(mode, kwargs, expected):
    assert aggregate(PER_TOKEN, MASK, mode, **kwargs).item() == pytest.approx(expected)


def test_empty_batch_is_zero_not_nan():
    for mode in AGG_MODES:
        assert aggregate(PER_TOKEN, torch.zeros_like(MASK), mode).item() == 0.0


def test_unknown_mode_lists_valid_modes():
    with pytest.raises(ValueError, match="token_mean, seq_mean_token_mean, seq_mean_token_sum, seq_sum_norm"):
        aggregate(PER_TOKEN, MASK, "mean")
    with pytest.raises(ValueError, match="unknown aggregation mode"):
        check_agg_mode("sum")
    assert check_agg_mode("token_mean") == "token_mean"


def test_batch_counts():
    tokens, seqs = batch_counts(MASK)
    assert (tokens.item(), seqs.item()) == (4, 2)


@pytest.mark.parametrize("mode", AGG_MODES)
def test_micro_batch_split_gives_whole_batch_value_and_gradient(mode):
    gen = torch.Generator().manual_seed(0)
    B, T = 7, 9
    x = torch.randn(B, T, generator=gen, dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([9, 1, 0, 4, 6, 2, 3])
    mask = torch.arange(T) < lengths.unsqueeze(-1)  # [B, T], row 2 empty
    per_token = torch.where(mask, x.square() + x, 0.0)  # any differentiable per-token loss

    whole = aggregate(per_token, mask, mode, max_len=T)
    (whole_grad,) = torch.autograd.grad(whole, x, retain_graph=True)

    # micro-batches of rows, each padded only to its own longest answer (as a dataloader would)
    chunks = [slice(0, 2), slice(2, 5), slice(5, 7)]
    counts = [batch_counts(mask[c]) for c in chunks]  # per micro-batch, then summed ("all-reduce")
    num_tokens = sum(t for t, _ in counts)
    num_seqs = sum(s for _, s in counts)
    total = 0.0
    for c in chunks:
        width = max(int(lengths[c].max()), 1)
        total = total + aggregate(
            per_token[c, :width], mask[c, :width], mode, num_tokens=num_tokens, num_seqs=num_seqs, max_len=T
        )
    (split_grad,) = torch.autograd.grad(total, x)
    torch.testing.assert_close(total, whole)
    torch.testing.assert_close(split_grad, whole_grad)

    # without the global counts the split is wrong (so the test above can fail)
    local = sum(aggregate(per_token[c], mask[c], mode, max_len=T) for c in chunks)
    assert not torch.allclose(local, whole)
