"""What the loss and the logs see of stale rollouts (rollout.staleness >= 1; docs/async-rl.md).

Three policies meet in an asynchronous step t. pi_behav generated the batch (version v <= t, recorded
per row with its sampling log-probs), pi_prox is the trainer's policy at the step's start (version
t), pi_theta the policy being updated. The loss's ratio and the per-token weight are:

    decoupled (AReaL, Fu et al. 2025, arXiv 2505.24298):
        r = pi_theta / pi_prox            (clipped by the loss as on fresh data)
        w = min(pi_prox / pi_behav, C)    (detached; C = rollout.behaviour_cap; harness.rollout.engine.mismatch_weights,
                                          the truncated importance weight tis_cap uses too)
        per-token loss = w * loss(r)      the expectation moves from pi_behav back to pi_prox,
                                          and the trust region is centred on pi_prox
    behaviour:
        r = pi_theta / pi_behav           (clipped against the generating policy itself; no weight)
                                          cheaper (no recomputed log-probs); a stale batch starts
                                          with ratios already away from 1, which the clip cuts

With staleness 0 the trainer's own log-probs are both pi_behav and pi_prox and nothing here applies.
AReaL masks tokens with w above its cap; this harness truncates them (Yao et al. 2025's TIS),
so no token's gradient is dropped.

Metrics (response tokens of the rows trained on):
    staleness_mean, staleness_max    version lag t - v of the rows
    staleness_lag{k}                 share of rows with lag k, k = 0..K (the lag histogram)
    behaviour_ratio_mean / _max      pi_prox / pi_behav
    behaviour_cap_frac               tokens whose weight was truncated at C (decoupled)
    behaviour_out_high / _low        tokens a clip against pi_behav would already cut: A > 0 and
                                     pi_prox / pi_behav > 1 + eps_high, or A < 0 and < 1 - eps_low
                                     (for losses that declare clip bounds): what staleness alone
                                     pushes out of the clip range before any update of the step
"""

from __future__ import annotations

import torch

from harness.training.step_metrics import StepMetrics


def lag_metrics(metrics: StepMetrics, lags: torch.Tensor, bound: int) -> None:
    """staleness_mean / _max and the lag histogram staleness_lag0..K of the rows' lags [K_rows]."""
    n = len(lags)
    metrics.add_scalar("staleness_mean", lags.float().sum(), n)
    metrics.maxima["staleness_max"] = max(metrics.maxima.get("staleness_max", 0.0), float(lags.max()) if n else 0.0)
    for lag in range(bound + 1):
        metrics.add_scalar(f"staleness_lag{lag}", (lags == lag).float().sum(), n)


def behaviour_ratio_metrics(
    metrics: StepMetrics,
    prox_logp: torch.Tensor,
    behav_logp: torch.Tensor,
    mask: torch.Tensor,
    advantages: torch.Tensor,
    cap: float | None,
    clip_bounds: tuple[float, float] | None,
) -> None:
    """The pi_prox / pi_behav figures of the rows given ([B, T] log-probs, [B, T] mask, [B] advantages)."""
    counted = mask.bool()  # [B, T]
    ratio = torch.exp(torch.where(counted, prox_logp - behav_logp, 0.0))  # [B, T] (padding: 1, never inf)
    tokens = float(mask.sum())
    if not tokens:
        return
    metrics.add_scalar("behaviour_ratio_mean", (ratio * mask).sum(), tokens)
    metrics.maxima["behaviour_ratio_max"] = max(
        metrics.maxima.get("behaviour_ratio_max", 0.0), float(ratio[counted].max())
    )
    if cap is not None:
        metrics.add_scalar("behaviour_cap_frac", ((ratio > cap).float() * mask).sum(), tokens)
    if clip_bounds is not None:
        eps_low, eps_high = clip_bounds
        adv = advantages.unsqueeze(-1)  # [B, 1]
        high = (adv > 0) & (ratio > 1 + eps_high)  # [B, T]
        low = (adv < 0) & (ratio < 1 - eps_low)  # [B, T]
        metrics.add_scalar("behaviour_out_high", (high.float() * mask).sum(), tokens)
        metrics.add_scalar("behaviour_out_low", (low.float() * mask).sum(), tokens)
