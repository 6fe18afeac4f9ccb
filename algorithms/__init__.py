"""Policy losses for RL on language models, as pure tensor maths (no model, no I/O, no config).

    from algorithms import PolicyBatch, LossOutput, get_loss, aggregate, LOSSES

    loss_fn = get_loss("ce_gppo", eps_low=0.2, eps_high=0.2, beta1=0.5, beta2=1.0)
    out = loss_fn(PolicyBatch(logp=logp, old_logp=old_logp, advantages=adv, mask=mask))
    loss = aggregate(out.per_token, mask, mode=loss_fn.default_agg)

One file per loss (grpo, dapo, cispo, gspo, gppo, ce_gppo, entropy_reg, and the entropy-control
rivals clip_cov, kl_cov, geo_mean (GMPO), sapo, and ERC's grpo_erc / gppo_erc in erc.py), each
registered by name; `aggregate` is the only place where per-token losses are reduced. Around the
losses: advantages (group-relative, DAPO filter and overlong shaping), KL estimators, schedules of a
loss's coefficients (CE-GPPO's betas), the token-quadrant / entropy-change diagnostics, and the 80/20
rule's top-entropy token mask (top_entropy.py), which the trainer applies on top of any loss. What an update
minimises is composed here too: `UpdateObjective` (algorithms.update_objective) = the loss weighted by
an off-policy correction (algorithms.corrections: none, tis, decoupled, behaviour; one file each,
registered by name) and aggregated, plus the NLL-on-positives and KL-to-reference terms. To add a
loss: write a frozen dataclass in a new file, decorate it with `@register_loss("name")`, give it
`default_agg` and `__call__(batch) -> LossOutput`, and import the file below (or in your own
package: a loss registered after import works everywhere, configs included). See docs/design.md.
"""

from . import (  # noqa: F401  (registers the losses)
    ce_gppo,
    cispo,
    clip_cov,
    dapo,
    entropy_reg,
    erc,
    geo_mean,
    gppo,
    grpo,
    gspo,
    kl_cov,
    sapo,
)
from .advantages import dynamic_sampling_filter, group_advantages, overlong_penalty
from .aggregation import AGG_MODES, aggregate, batch_counts, check_agg_mode, masked_mean
from .batch import LossOutput, PolicyBatch
from .corrections import CORRECTIONS, MISMATCH_VARIANTS, OffPolicyCorrection, get_correction, register_correction
from .kl import KL_ESTIMATORS, kl_penalty
from .loss_registry import PolicyLoss, get_loss, loss_params, register_loss, registered_losses
from .quadrants import QUADRANTS, clipped_token_counts, entropy_change_first_order, grad_wrt_logp, quadrant_stats
from .schedules import SCHEDULE_KINDS, CoefficientSchedule, schedule_for
from .top_entropy import check_top_entropy_quantile, top_entropy_mask
from .update_objective import ObjectiveOutput, UpdateObjective, positive_nll, reference_kl

LOSSES: tuple[str, ...] = registered_losses()

__all__ = [
    "AGG_MODES",
    "CORRECTIONS",
    "KL_ESTIMATORS",
    "LOSSES",
    "MISMATCH_VARIANTS",
    "QUADRANTS",
    "SCHEDULE_KINDS",
    "CoefficientSchedule",
    "LossOutput",
    "ObjectiveOutput",
    "OffPolicyCorrection",
    "PolicyBatch",
    "PolicyLoss",
    "UpdateObjective",
    "aggregate",
    "batch_counts",
    "check_agg_mode",
    "dynamic_sampling_filter",
    "entropy_change_first_order",
    "get_correction",
    "get_loss",
    "grad_wrt_logp",
    "group_advantages",
    "kl_penalty",
    "loss_params",
    "masked_mean",
    "overlong_penalty",
    "positive_nll",
    "quadrant_stats",
    "clipped_token_counts",
    "check_top_entropy_quantile",
    "top_entropy_mask",
    "reference_kl",
    "register_correction",
    "register_loss",
    "registered_losses",
    "schedule_for",
]
