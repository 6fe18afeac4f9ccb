"""What the config asks of a policy update, as `algorithms` objects: the off-policy correction and the objective.

    correction = correction_for(config.rollout)      # once per run
    objective = objective_for(config, loss_fn)       # each step, around the loss with its scheduled coefficients
    positive = positive_rows(config, rewards, correct)   # the rows of the NLL-on-positives term, or None

The only place where config keys pick a correction (algorithms.corrections) or a loss term
(algorithms.update_objective); `algorithms` itself never sees a config.
"""

from __future__ import annotations

import torch

from algorithms import OffPolicyCorrection, PolicyLoss, UpdateObjective, get_correction
from harness.schema import RolloutConfig, TrainConfig


def correction_for(rollout: RolloutConfig) -> OffPolicyCorrection:
    """Stale rollouts (rollout.staleness >= 1): rollout.staleness_correction, `decoupled` truncated at
    rollout.behaviour_cap or `behaviour`. Fresh ones: `tis` truncated at rollout.tis_cap when it is set
    (the engine's sampling log-probs come with the rollouts), else `none`. rollout.mismatch, when set, is the
    correction on both paths (`mismatch` with its variant and bounds; with staleness it replaces decoupled's
    weight, the ratio pi_prox / pi_behaviour being the same)."""
    if rollout.mismatch != "none":
        return get_correction(
            "mismatch", variant=rollout.mismatch, low=rollout.mismatch_low, high=rollout.mismatch_high
        )
    if rollout.staleness:
        if rollout.staleness_correction == "decoupled":
            return get_correction("decoupled", cap=rollout.behaviour_cap)
        return get_correction(rollout.staleness_correction)
    if rollout.tis_cap is not None:
        return get_correction("tis", cap=rollout.tis_cap)
    return get_correction("none")


def objective_for(config: TrainConfig, loss_fn: PolicyLoss) -> UpdateObjective:
    """The loss, aggregated by algo.agg_mode (default: the loss's own), plus algo.positive_nll_coef x the
    NLL on positives and algo.kl_coef x the algo.kl_estimator KL to the reference."""
    algo = config.algo
    agg_mode = algo.agg_mode or loss_fn.default_agg
    return UpdateObjective(loss_fn, agg_mode, algo.positive_nll_coef, algo.kl_coef, algo.kl_estimator)


def positive_rows(config: TrainConfig, rewards: torch.Tensor, correct: torch.Tensor) -> torch.Tensor | None:
    """[N] bool: the rows the NLL term trains on, those the grader judged correct (`correct` [N]) whose reward
    is exactly reward.correct (as the official recipes take them: a correct answer shaped down by the
    overlong penalty is left out); None when algo.positive_nll_coef is 0. The verdict matters where the
    reward cannot tell: with reward.correct == reward.incorrect every wrong answer has the correct reward."""
    if config.algo.positive_nll_coef <= 0:
        return None
    return correct.bool() & (rewards == config.reward.correct)
