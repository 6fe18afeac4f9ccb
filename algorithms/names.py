"""The names the configuration and `--help` offer, without importing torch: built-in losses, aggregation
modes and KL estimators.

    from algorithms.names import LOSS_NAMES, AGG_MODES, KL_ESTIMATOR_NAMES

`harness --help` and `harness train --help` list the losses; importing the losses themselves (and with
them torch) costs seconds of CPU, so the names are stated here and tests/algorithms/test_registry.py
checks each list against its owner: LOSS_NAMES against the registry once the built-ins are registered,
AGG_MODES against `aggregate`, KL_ESTIMATOR_NAMES against `algorithms.kl.KL_ESTIMATORS`. A loss
registered by another package is not listed here; it appears wherever the registry is asked
(`algorithms.registered_losses()`), configs included. A new built-in loss adds its name below.
"""

LOSS_NAMES: tuple[str, ...] = (
    "ce_gppo",
    "cispo",
    "clip_cov",
    "dapo",
    "entropy_reg",
    "grpo_erc",
    "gppo_erc",
    "geo_mean",
    "gppo",
    "grpo",
    "gspo",
    "kl_cov",
    "sapo",
)
"""Built-in losses, in the order the registry lists them."""

AGG_MODES: tuple[str, ...] = ("token_mean", "seq_mean_token_mean", "seq_mean_token_sum", "seq_sum_norm")
"""Aggregation modes of `algorithms.aggregate` (defined here, imported by algorithms.aggregation)."""

KL_ESTIMATOR_NAMES: tuple[str, ...] = ("k1", "k2", "k3")
"""Estimators of the KL to the reference policy (algorithms.kl)."""


def unknown_loss(name: object, valid: tuple[str, ...]) -> str:
    """The refusal of a loss name that is not registered (the registry's, and the config's before the
    losses are imported)."""
    return f"unknown loss {name!r}; valid losses: {', '.join(valid)}"


# The losses compute in float32 (max 3.4e38, smallest normal 1.2e-38), while Python checks
# parameters as float64: 1e300 passes a float64 range check and becomes inf on the first tensor op
# (a clamp raises, inf x 0 gives nan). A parameter must stay well inside float32's normal range, with
# room for the arithmetic done on it (SAPO divides 4 by tau; a ratio up to e^20 multiplies tau).
FLOAT32_SAFE_MAX = 1e30
FLOAT32_SAFE_MIN = 1e-30
FLOAT32_SAFE_RANGE = f"0 or {FLOAT32_SAFE_MIN:g} <= |x| <= {FLOAT32_SAFE_MAX:g} (computed in float32)"


def float32_safe(value: float) -> bool:
    """Whether `value` (and 1/value) stays finite and normal in float32: 0, or |value| in [1e-30, 1e30]."""
    size = abs(value)
    return size == 0.0 or FLOAT32_SAFE_MIN <= size <= FLOAT32_SAFE_MAX


MISMATCH_VARIANTS: tuple[str, ...] = (
    "token_truncate",
    "token_mask",
    "sequence_truncate",
    "sequence_mask",
    "geometric_mask",
    "icepop",
)
"""The variants of rollout.mismatch, besides "none": algorithms.corrections.mismatch's, stated here without torch
(tests/algorithms/test_registry.py checks the two lists are the same)."""
