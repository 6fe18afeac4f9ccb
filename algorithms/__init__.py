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

Nothing is imported until a name is used (`algorithms.names` holds the ones `--help` lists, without torch).
"""

from typing import Any

# Names resolve on first use (PEP 562): `import algorithms` alone, or `algorithms.names` (what `--help`
# reads), imports no torch. Any name below registers the built-in losses first, so the registry is whole.
_EXPORTS = {
    "advantages": ("dynamic_sampling_filter", "group_advantages", "overlong_penalty"),
    "aggregation": ("AGG_MODES", "aggregate", "batch_counts", "check_agg_mode", "masked_mean"),
    "batch": ("LossOutput", "PolicyBatch"),
    "corrections": ("CORRECTIONS", "MISMATCH_VARIANTS", "OffPolicyCorrection", "get_correction", "register_correction"),
    "kl": ("KL_ESTIMATORS", "kl_penalty"),
    "loss_registry": (
        "FLOAT32_SAFE_RANGE",
        "PolicyLoss",
        "float32_safe",
        "get_loss",
        "loss_params",
        "register_loss",
        "registered_losses",
    ),
    "quadrants": (
        "QUADRANTS",
        "clipped_token_counts",
        "entropy_change_first_order",
        "grad_wrt_logp",
        "quadrant_stats",
    ),
    "schedules": ("SCHEDULE_KINDS", "CoefficientSchedule", "schedule_for"),
    "top_entropy": ("check_top_entropy_quantile", "top_entropy_mask"),
    "update_objective": ("ObjectiveOutput", "UpdateObjective", "positive_nll", "reference_kl"),
}


def _modules() -> dict[str, Any]:
    """Register the built-in losses, then the modules that hold the package's names."""
    import sys

    from . import (  # noqa: F401  (the loss modules register their losses on import)
        advantages,
        aggregation,
        batch,
        ce_gppo,
        cispo,
        clip_cov,
        corrections,
        dapo,
        entropy_reg,
        erc,
        geo_mean,
        gppo,
        grpo,
        gspo,
        kl,
        kl_cov,
        loss_registry,
        quadrants,
        sapo,
        schedules,
        top_entropy,
        update_objective,
    )

    return {home: sys.modules[f"{__name__}.{home}"] for home in _EXPORTS}


def __getattr__(name: str) -> Any:
    if name == "LOSSES":  # every loss registered when it is first asked for
        value = __getattr__("registered_losses")()
    else:
        home = next((module for module, names in _EXPORTS.items() if name in names), None)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(_modules()[home], name)
    globals()[name] = value
    return value


__all__ = [
    "AGG_MODES",
    "CORRECTIONS",
    "FLOAT32_SAFE_RANGE",
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
    "float32_safe",
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
