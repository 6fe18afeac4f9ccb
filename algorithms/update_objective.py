"""What one policy update minimises: the policy loss, corrected and aggregated, plus the extra terms.

    objective = UpdateObjective(get_loss("ce_gppo"), "token_mean", positive_nll_coef=0.1)
    out = objective(batch, counts, weights=w, positive_mask=positives, positive_counts=positive_counts)
    out.total.backward()

With l_t the loss's per-token value, w_t the off-policy correction's weight (algorithms.corrections;
1 without one) and agg the configured aggregation over the batch's mask:

    total = agg(w * l)                                    the policy loss
          + positive_nll_coef * agg_+(-logp)              NLL on the rewarded responses (the official
                                                          CE-GPPO recipe's positive_loss_coeff), reduced
                                                          over the positive tokens and responses only
          + kl_coef * agg(k(logp, ref_logp))              KL to the reference policy (algorithms.kl:
                                                          k1, k2 or k3), when the batch has ref_logp

The entropy bonus is not a term here: it is the loss `entropy_reg`, which wraps any registered
loss and subtracts coef * H_t from its per-token value, so it is part of l and gets the
correction's weight and the loss's aggregation like the rest of l.

`counts` and `positive_counts` are `aggregate`'s keyword arguments (num_tokens, num_seqs,
max_len) for the whole mini-batch on every rank, so that summing `total` over micro-batches
gives the whole mini-batch's value and gradient.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from torch import Tensor

from .aggregation import aggregate
from .batch import LossOutput, PolicyBatch
from .kl import kl_penalty
from .loss_registry import PolicyLoss


def positive_nll(logp: Tensor, positive_mask: Tensor, agg_mode: str, **counts: Any) -> Tensor:
    """0-dim NLL of the tokens under `positive_mask` [B, T]: agg(-logp). With token_mean over N_+
    positive tokens, d/d logp_t = -1 / N_+ on each of them."""
    return aggregate(-logp, positive_mask, agg_mode, **counts)


def reference_kl(logp: Tensor, ref_logp: Tensor, mask: Tensor, estimator: str, agg_mode: str, **counts: Any) -> Tensor:
    """0-dim KL(pi_theta || pi_ref) estimate of the sampled tokens, reduced like the policy loss."""
    return aggregate(kl_penalty(logp, ref_logp, mask, estimator), mask, agg_mode, **counts)  # k [B, T] -> 0-dim


@dataclass(frozen=True)
class ObjectiveOutput:
    total: Tensor  # 0-dim, carries the gradient
    policy: LossOutput  # the loss's own output: per-token values before the correction's weights, metrics
    terms: dict[str, Tensor] = field(default_factory=dict)  # each extra term before its coefficient, detached


@dataclass(frozen=True)
class UpdateObjective:
    loss: PolicyLoss
    agg_mode: str
    positive_nll_coef: float = 0.0
    kl_coef: float = 0.0
    kl_estimator: str = "k3"

    def __call__(
        self,
        batch: PolicyBatch,
        counts: Mapping[str, Any],
        weights: Tensor | None = None,
        positive_mask: Tensor | None = None,
        positive_counts: Mapping[str, Any] | None = None,
    ) -> ObjectiveOutput:
        """`weights` [B, T] (None: all 1); `positive_mask` [B, T] the rewarded responses' tokens
        (None, or positive_nll_coef 0: no NLL term)."""
        out = self.loss(batch)
        per_token = out.per_token if weights is None else out.per_token * weights  # [B, T]
        total = aggregate(per_token, batch.mask, self.agg_mode, **counts)
        terms = {}
        if positive_mask is not None and self.positive_nll_coef > 0:
            nll = positive_nll(batch.logp, positive_mask, self.agg_mode, **(positive_counts or {}))
            total = total + self.positive_nll_coef * nll
            terms["positive_nll"] = nll.detach()
        if batch.ref_logp is not None and self.kl_coef > 0:
            kl = reference_kl(batch.logp, batch.ref_logp, batch.mask, self.kl_estimator, self.agg_mode, **counts)
            total = total + self.kl_coef * kl
            terms["kl_ref"] = kl.detach()
        return ObjectiveOutput(total, out, terms)
