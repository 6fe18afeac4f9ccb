"""Off-policy corrections: how the loss treats rollouts that another policy generated.

    from algorithms.corrections import get_correction, CORRECTIONS

    correction = get_correction("decoupled", cap=2.0)
    correction.old_policy                     # "proximal": the loss's old_logp is the trainer's own
    correction.weights(prox_logp, behav_logp, mask)        # [B, T] per-token loss weights, or None
    correction.metrics(prox_logp, behav_logp, mask, advantages, clip_bounds)  # {name: 0-dim tensor}

Three policies meet in an RL step: pi_behav generated the tokens (the rollout engine, or an older
version of the weights), pi_prox is the trainer's policy at the step's start, pi_theta the policy
being updated. A correction says which of pi_prox and pi_behav is the loss's old policy (the
denominator of its ratio), and which detached per-token weight multiplies the loss:

    none        old = pi_prox, no weight                         (synchronous, no engine log-probs)
    tis         old = pi_prox, w = min(pi_prox / pi_behav, C)    (train/inference mismatch, Yao et al. 2025)
    decoupled   old = pi_prox, w = min(pi_prox / pi_behav, C)    (stale rollouts, AReaL: Fu et al. 2025)
    behaviour   old = pi_behav, no weight                        (stale rollouts, clip against the generator)
    mismatch    old = pi_prox, w by variant: token / sequence x truncate / mask, geometric_mask, icepop
                (train/inference mismatch and stale rollouts alike; mismatch.py)

Pure tensor maths like the losses: no config, no I/O. Every module of this folder is imported
below and registers its correction, so adding one is one new file (a frozen dataclass decorated
with `@register_correction("name")`) plus its test. May import: `algorithms` only.
"""

import importlib
import pkgutil

from .correction_registry import OffPolicyCorrection, get_correction, register_correction, registered_corrections

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")  # each correction registers itself

from .mismatch import MISMATCH_VARIANTS, mismatch_bounds  # noqa: E402

CORRECTIONS: tuple[str, ...] = registered_corrections()

__all__ = [
    "CORRECTIONS",
    "MISMATCH_VARIANTS",
    "mismatch_bounds",
    "OffPolicyCorrection",
    "get_correction",
    "register_correction",
    "registered_corrections",
]
