"""The 80/20 rule: the policy gradient only on the highest-entropy share of the response tokens.

Paper: Beyond the 80/20 Rule: High-Entropy Minority Tokens Drive Effective Reinforcement Learning for
LLM Reasoning, Wang et al. 2025, arXiv 2506.01939 (TRL's `top_entropy_quantile`). With rho the share
kept (0.2 in the paper), a token keeps its gradient when its entropy is at least the (1 - rho)
quantile of the entropies of all response tokens of the batch; the other tokens' per-token loss is
multiplied by 0 but they stay in the aggregation's denominator (as TRL multiplies the per-token loss
by the mask before its token mean).

Applies on top of any loss: the trainer computes the mask once per step from the old policy's
entropies (its no-grad pass at the step's start) and multiplies it into the per-token weights.
The threshold is one `kthvalue` over the entropies with padding at -inf (O(B T), no sort, no size
limit, unlike torch.quantile): with k = ceil(rho N) tokens to keep, it is the (N - k + 1)-th smallest value, so
exactly k tokens pass when there are no ties (ties at the threshold all pass).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def check_top_entropy_quantile(value) -> None:
    """rho, the share of tokens that keep their gradient: in (0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value <= 1.0:
        raise ValueError(f"top_entropy_quantile must be in (0, 1], got {value!r}")


@torch.no_grad()
def top_entropy_mask(entropy: Tensor, mask: Tensor, quantile: float) -> Tensor:
    """[B, T] bool: the response tokens (mask [B, T]) whose entropy [B, T] is in the top `quantile` share."""
    check_top_entropy_quantile(quantile)
    counted = mask.bool()  # [B, T]
    n = int(counted.sum())
    if n == 0:
        return counted
    # padding as -inf sorts below every response token, so no gather of the N counted values is needed
    values = entropy.detach().masked_fill(~counted, -math.inf).flatten()  # [B * T]
    keep = max(1, math.ceil(quantile * n - 1e-9))  # tokens that keep a gradient (the 1e-9 absorbs 0.2 * 10 = 2.0000x)
    threshold = values.kthvalue(values.numel() - keep + 1).values  # 0-dim: the smallest kept entropy
    return counted & (entropy.detach() >= threshold)  # [B, T]
