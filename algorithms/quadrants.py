"""Token-quadrant statistics and the first-order entropy change of a softmax policy.

CE-GPPO (arXiv 2509.20712, building on Cui et al., arXiv 2505.22617) sorts tokens by the sign
of their advantage (PA: A > 0, NA: A < 0) and by their probability (HP: high, LP: low):

    PA&HP  raising a likely token       -> entropy falls     (exploitation)
    PA&LP  raising an unlikely token    -> entropy rises     (exploration; CE-GPPO's beta2)
    NA&HP  lowering a likely token      -> entropy rises
    NA&LP  lowering an unlikely token   -> entropy falls     (CE-GPPO's beta1)

Why, to first order, for a softmax policy pi = softmax(z) over a vocabulary and an update
z <- z + dz (derivation for `entropy_change_first_order`):

    H(z) = -sum_v pi_v log pi_v,      d pi_v / d z_k = pi_v (1[v=k] - pi_k)
    dH/dz_k = -sum_v (d pi_v / d z_k)(log pi_v + 1) = -pi_k (log pi_k - E_pi[log pi])
    dH = sum_k dH/dz_k dz_k = -sum_k pi_k (log pi_k - E_pi[log pi]) dz_k
       = -Cov_{a~pi}(log pi(a), dz(a))

(the centring of dz is free because the first factor already has pi-mean zero). A gradient step
on log pi(a) with weight eta*A gives dz = eta A (e_a - pi), and the covariance is then dominated
by pi_a (log pi_a - E_pi[log pi]): positive for a likely token, negative for an unlikely one,
which gives the table above: "entropy change ~ -eta Cov(log pi, A)".
"""

from __future__ import annotations

import torch
from torch import Tensor

QUADRANTS = ("pa_hp", "pa_lp", "na_hp", "na_lp")


def entropy_change_first_order(logits: Tensor, logit_update: Tensor) -> Tensor:
    """First-order change of the softmax entropy when `logits` [..., V] move by `logit_update`.

    Returns -Cov_{a~pi}(log pi(a), dz(a)) over the last dimension, shape [...]. For a gradient
    step z <- z + eta * g pass logit_update = eta * g.
    """
    logp = torch.log_softmax(logits, dim=-1)  # [..., V]
    p = logp.exp()  # [..., V]
    centred_logp = logp - (p * logp).sum(dim=-1, keepdim=True)  # [..., V]  log pi - E_pi[log pi]
    return -(p * centred_logp * logit_update).sum(dim=-1)  # [...]


def grad_wrt_logp(loss: Tensor, logp: Tensor) -> Tensor:
    """d loss / d logp [B, T] without touching any .grad (the graph is kept for backward).

    Pass the aggregated loss to include the aggregation weights, or per_token.sum() for the raw
    per-token coefficients. Every loss here is separable over tokens in logp, so this is cheap.
    """
    (grad,) = torch.autograd.grad(loss.sum(), logp, retain_graph=True)
    return grad  # [B, T]


@torch.no_grad()
def quadrant_stats(
    advantages: Tensor,
    old_logp: Tensor,
    mask: Tensor,
    *,
    prob_threshold: float = 0.5,
    grad_coef: Tensor | None = None,
) -> dict[str, Tensor]:
    """Detached 0-dim statistics of the four quadrants over the masked tokens.

    A token is HP when pi_old(token) = exp(old_logp) > prob_threshold (the threshold is a choice
    of this project, default 0.5), LP otherwise; PA / NA by the sign of its advantage (tokens with
    A = 0 belong to no quadrant, so the fractions may sum to less than 1).

    Returns frac_<q> (share of masked tokens) for q in QUADRANTS and, when `grad_coef` [B, T]
    (e.g. `grad_wrt_logp(loss, logp)`) is given, grad_share_<q>: the quadrant's share of
    sum |d loss / d logp| over the masked tokens (0 everywhere when there is no gradient).
    """
    if not 0.0 < prob_threshold < 1.0:
        raise ValueError(f"prob_threshold must be in (0, 1), got {prob_threshold!r}")
    m = mask.bool()  # [B, T]
    adv = advantages.unsqueeze(-1).expand_as(old_logp) if advantages.dim() == 1 else advantages  # [B, T]
    high = old_logp.exp() > prob_threshold  # [B, T]
    quadrant = {
        "pa_hp": (adv > 0) & high,
        "pa_lp": (adv > 0) & ~high,
        "na_hp": (adv < 0) & high,
        "na_lp": (adv < 0) & ~high,
    }
    count = m.sum().clamp(min=1)
    stats = {f"frac_{q}": (quadrant[q] & m).sum() / count for q in QUADRANTS}
    if grad_coef is not None:
        magnitude = torch.where(m, grad_coef.abs(), 0.0)  # [B, T]
        total = magnitude.sum()
        for q in QUADRANTS:
            share = torch.where(quadrant[q], magnitude, 0.0).sum() / total
            stats[f"grad_share_{q}"] = torch.where(total > 0, share, torch.zeros_like(share))
    return stats


@torch.no_grad()
def clipped_token_counts(
    advantages: Tensor,
    logp: Tensor,
    old_logp: Tensor,
    mask: Tensor,
    *,
    eps_low: float,
    eps_high: float,
    prob_threshold: float = 0.5,
) -> dict[str, Tensor]:
    """How many token-level clipped tokens there are, and how many of them are low-probability.

    CE-GPPO's entropy argument assumes the tokens PPO clips are mostly LP: NA&LP below 1-eps_low
    (beta1's tokens, pushing them down lowers entropy) and PA&LP above 1+eps_high (beta2's tokens,
    raising them raises entropy). When clipped tokens are mostly HP instead, each beta term moves
    entropy the other way. Returns 0-dim counts clip_low, clip_low_lp, clip_high, clip_high_lp
    (counts, so that micro-batches and ranks pool exactly). LP uses pi_old, as `quadrant_stats`.
    """
    m = mask.bool()  # [B, T]
    adv = advantages.unsqueeze(-1).expand_as(old_logp) if advantages.dim() == 1 else advantages  # [B, T]
    ratio = (logp - old_logp).exp()  # [B, T]
    low_prob = old_logp.exp() <= prob_threshold  # [B, T]
    clip_low = m & (adv < 0) & (ratio < 1 - eps_low)  # [B, T]
    clip_high = m & (adv > 0) & (ratio > 1 + eps_high)  # [B, T]
    return {
        "clip_low": clip_low.sum(),
        "clip_low_lp": (clip_low & low_prob).sum(),
        "clip_high": clip_high.sum(),
        "clip_high_lp": (clip_high & low_prob).sum(),
    }
