"""Per-token estimators of KL(pi_theta || pi_ref) from tokens sampled by pi_theta.

Reference: J. Schulman, "Approximating KL divergence" (2020); k3 is the estimator GRPO uses for
its KL penalty (arXiv 2402.03300). With d = logp - ref_logp (log pi_theta - log pi_ref) on a
sampled token:

    k1 = d                        unbiased, high variance, can be negative
    k2 = d^2 / 2                  biased (second order in d), low variance, >= 0
    k3 = exp(-d) - (-d) - 1       unbiased (E_pi[exp(-d)] = 1), low variance, >= 0

All three agree to second order when pi_theta is close to pi_ref. Masked positions hold 0;
reduce with `aggregate` like any per-token loss, e.g. loss + kl_coef * aggregate(kl_penalty(...)).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor


def _k1(d: Tensor) -> Tensor:
    return d


def _k2(d: Tensor) -> Tensor:
    return 0.5 * d.square()


def _k3(d: Tensor) -> Tensor:
    # exp(ref - logp) - (ref - logp) - 1, with ref - logp = -d; expm1 keeps precision for small d
    return torch.expm1(-d) + d


KL_ESTIMATORS: dict[str, Callable[[Tensor], Tensor]] = {"k1": _k1, "k2": _k2, "k3": _k3}


def kl_penalty(logp: Tensor, ref_logp: Tensor, mask: Tensor, kind: str = "k3") -> Tensor:
    """Per-token KL estimate [B, T] of the sampled tokens, 0 at masked positions.

    `kind` is one of "k1", "k2", "k3". Gradients flow through `logp`; `ref_logp` is detached.
    """
    if kind not in KL_ESTIMATORS:
        raise ValueError(f"unknown KL estimator {kind!r}; valid: {', '.join(KL_ESTIMATORS)}")
    m = mask.bool()  # [B, T]
    d = torch.where(m, logp - ref_logp.detach(), 0.0)  # [B, T]  log pi_theta - log pi_ref
    return torch.where(m, KL_ESTIMATORS[kind](d), 0.0)  # [B, T]
