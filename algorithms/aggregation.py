"""Reduce a per-token loss [B, T] to the scalar that is back-propagated.

Reduction is kept apart from the losses: the same loss can be reduced in any mode, and every
mode can be told the counts of the *whole* batch (all micro-batches, all data-parallel ranks) so
that the result does not depend on how the batch was split. With l_it the per-token loss, m_it
the mask, n_i = sum_t m_it the length of sequence i, N = sum_i n_i and S the number of sequences:

    token_mean           sum_it m_it l_it / N                       (DAPO, CE-GPPO: long answers weigh more)
    seq_mean_token_mean  (1/S) sum_i (sum_t m_it l_it / n_i)       (GRPO, GSPO: every answer weighs the same)
    seq_mean_token_sum   (1/S) sum_i sum_t m_it l_it
    seq_sum_norm         (1/S) sum_i sum_t m_it l_it / L           (Dr.GRPO arXiv 2503.20783: L a constant,
                                                                     e.g. the maximum response length)

Every mode is a sum of per-sequence terms divided by a constant, so with the global N and S
given, summing `aggregate` over micro-batches gives the whole-batch value, and its gradient.
(Splits are over sequences: a sequence's n_i is taken from its own row.)
"""

from __future__ import annotations

import torch
from torch import Tensor

from .names import AGG_MODES


def check_agg_mode(mode: str) -> str:
    """Return `mode` if it is a known aggregation mode, else raise ValueError listing the valid ones."""
    if mode not in AGG_MODES:
        raise ValueError(f"unknown aggregation mode {mode!r}; valid modes: {', '.join(AGG_MODES)}")
    return mode


def masked_mean(values: Tensor, mask: Tensor) -> Tensor:
    """Mean of `values` over the positions where `mask` is set (0 for an empty mask), 0-dim.

    Uses torch.where, not a product, so junk (even inf or NaN) at masked positions cannot leak."""
    m = mask.bool()
    return torch.where(m, values, 0.0).sum() / m.sum().clamp(min=1)


def batch_counts(mask: Tensor) -> tuple[Tensor, Tensor]:
    """(num_tokens, num_seqs) of one micro-batch: counted tokens and sequences with at least one.

    Sum these over micro-batches (and all-reduce over ranks) to get the global counts `aggregate`
    takes. Returned as 0-dim tensors so that they can be all-reduced without a host sync.
    """
    m = mask.bool()  # [B, T]
    return m.sum(), m.any(dim=-1).sum()


def aggregate(
    per_token: Tensor,
    mask: Tensor,
    mode: str,
    *,
    num_tokens: Tensor | int | None = None,
    num_seqs: Tensor | int | None = None,
    max_len: int | None = None,
) -> Tensor:
    """Reduce `per_token` [B, T] under `mask` [B, T] to a 0-dim tensor with the given `mode`.

    Keyword arguments describe the whole batch when it is processed in pieces:
    - `num_tokens`: total counted tokens N across all micro-batches and ranks (used by
      `token_mean`; default: this mask's count).
    - `num_seqs`: total sequences S with at least one counted token (used by the three seq_*
      modes; default: this mask's count). `batch_counts` gives both for one micro-batch.
    - `max_len`: the constant length L of `seq_sum_norm` (default: T, this batch's padded length,
      which can differ between micro-batches; pass the maximum response length when splitting).
    """
    reduce = _REDUCTIONS[check_agg_mode(mode)]
    if per_token.shape != mask.shape:
        raise ValueError(f"per_token {tuple(per_token.shape)} and mask {tuple(mask.shape)} must have the same shape")
    if max_len is not None and max_len <= 0:
        raise ValueError(f"max_len must be a positive number of tokens, got {max_len!r}")
    m = mask.bool()  # [B, T]
    loss = torch.where(m, per_token, 0.0)  # [B, T]; where, not *, so junk at masked positions cannot leak
    local_tokens, local_seqs = batch_counts(m)
    tokens = _at_least_one(local_tokens if num_tokens is None else num_tokens)
    seqs = _at_least_one(local_seqs if num_seqs is None else num_seqs)
    return reduce(loss, m, tokens, seqs, m.shape[-1] if max_len is None else max_len)


def _at_least_one(count: Tensor | int | float) -> Tensor | float:
    # An empty batch reduces to 0, not NaN.
    return count.clamp(min=1) if isinstance(count, Tensor) else max(float(count), 1.0)


def _token_mean(loss: Tensor, m: Tensor, tokens, seqs, length: int) -> Tensor:
    return loss.sum() / tokens  # sum_it l_it / N


def _seq_mean_token_mean(loss: Tensor, m: Tensor, tokens, seqs, length: int) -> Tensor:
    per_seq = loss.sum(dim=-1) / m.sum(dim=-1).clamp(min=1)  # [B]  sum_t l_it / n_i
    return per_seq.sum() / seqs


def _seq_mean_token_sum(loss: Tensor, m: Tensor, tokens, seqs, length: int) -> Tensor:
    return loss.sum() / seqs  # sum_i sum_t l_it / S


def _seq_sum_norm(loss: Tensor, m: Tensor, tokens, seqs, length: int) -> Tensor:
    return loss.sum() / (length * seqs)  # sum_i sum_t l_it / (L S)


_REDUCTIONS = {
    "token_mean": _token_mean,
    "seq_mean_token_mean": _seq_mean_token_mean,
    "seq_mean_token_sum": _seq_mean_token_sum,
    "seq_sum_norm": _seq_sum_norm,
}
