"""One Optuna trial: train the base config with the trial's values on the paired seeds, report the mean.

The trial's MLflow run is nested under the study's parent run; its id is handed to the training
(`harness.training.train.train(run_id=...)`, i.e. Lightning's MLFlowLogger), so the per-step curves of a
one-seed trial live in the trial run itself. With several seeds each seed trains in a run nested
under the trial run, and the trial run holds the means.

Recorded on the trial (Optuna user attributes) and its MLflow run (metrics and tags): the
objective, the held-out accuracy before / after (and, on the trial only, after RL per seed with the
number of held-out problems, for the trial table's significance groups), every stability figure of
`harness.training.summary.stability_figures` (mean over seeds), the training seconds, and the MLflow run
id; a trial that raises or stops on non-finite losses is failed with its reason, a pruned one is
marked pruned (Optuna state PRUNED, MLflow run KILLED with tag sweep.state=PRUNED), an interrupted
one (Ctrl-C, SIGTERM) ends its runs KILLED and is retried by the next command (`sweeps.recovery`).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import lightning as L
import optuna
from optuna.trial import TrialState

from harness.tracking import RetryingClient, tracked_run
from harness.training.summary import stability_figures
from harness.training.train import StopRun, train
from sweeps.config import SweepConfig
from sweeps.spaces import get_space

STATE_TAG = "sweep.state"


class Pruned(StopRun):
    """The pruner stopped the trial: its run ends KILLED with the step and value in the reason."""


class PruningCallback(L.Callback):
    """After each validation step, report the held-out accuracy gain and let the pruner decide."""

    def __init__(self, trial: optuna.Trial, every: int, warmup_steps: int):
        self.trial, self.every, self.warmup_steps = trial, every, warmup_steps

    def on_train_epoch_end(self, trainer, module):
        step = trainer.current_epoch
        if (step + 1) % self.every or not module.history or module.heldout_before is None:
            return
        accuracy = module.history[-1].get("val_heldout_greedy_accuracy")
        if accuracy is None:
            return
        gain = accuracy - module.heldout_before["greedy_accuracy"]
        self.trial.report(gain, step)
        if step >= self.warmup_steps and self.trial.should_prune():
            raise Pruned(f"pruned at step {step} (held-out accuracy gain {gain:+.3f})")


def trial_values(config: SweepConfig, trial: optuna.Trial) -> dict[str, float]:
    """The trial's training-config overrides: grid points or sampled values."""
    space = get_space(config.space)
    keys = list(config.search_grid()) if config.mode == "grid" else list(config.params or space.keys)
    return space.suggest(trial, keys)


class DuplicateGridPoint(Exception):
    """Two workers raced past the grid's end: this trial's point is another trial's; it is not run."""


def refuse_duplicate(config: SweepConfig, trial: optuna.Trial, values: dict) -> None:
    if config.mode != "grid" or trial.number < config.grid_size:
        return  # within the grid every trial number is its own point
    trials = trial.study.get_trials(deepcopy=False)
    if "failed_trial" in trials[trial.number].system_attrs:
        return  # a retry repeats a dead trial on purpose
    for other in trials:
        same = other.number != trial.number and other.params == trial.params
        if same and other.state in (TrialState.COMPLETE, TrialState.RUNNING, TrialState.PRUNED):
            raise DuplicateGridPoint(f"grid point {values} is trial {other.number}'s; not run twice")


def seeds(config: SweepConfig) -> list[int]:
    return [config.seed + i for i in range(config.seeds_per_trial)]


def _train_seed(config: SweepConfig, trial, values: dict, seed: int, run_id: str, log) -> dict:
    out = Path(config.output_dir) / "trials" / f"trial{trial.number:04d}-seed{seed}"
    train_config = config.base_train_config(values, seed, str(out))
    callbacks = [PruningCallback(trial, config.prune_every, config.prune_warmup_steps)]
    if config.pruner == "none" or config.seeds_per_trial > 1:
        callbacks = []  # a pruner sees one curve: prune only one-seed trials
    return train(train_config, log=log, run_id=run_id, callbacks=callbacks)


def run_trial(config: SweepConfig, trial: optuna.Trial, parent_run_id: str, log=print) -> float | tuple[float, float]:
    """The Optuna objective: train, record, return the objective value(s)."""
    values = trial_values(config, trial)
    refuse_duplicate(config, trial, values)
    uri, client = config.mlflow_uri, RetryingClient(config.mlflow_uri)
    name = f"trial{trial.number:04d}"
    tags = {"sweep.study": config.study_name, "sweep.trial": str(trial.number), "sweep.role": "trial"}
    summaries, train_seconds = [], 0.0
    with tracked_run(
        uri, config.experiment, name, tags=tags, parent_run_id=parent_run_id, killed_by=(optuna.TrialPruned,)
    ) as trial_run:
        trial.set_user_attr("mlflow_run_id", trial_run)
        client.log_batch(trial_run, params=_params({f"sweep.{k}": v for k, v in values.items()}))
        try:
            for seed in seeds(config):
                started = time.monotonic()
                if config.seeds_per_trial == 1:
                    summaries.append(_train_seed(config, trial, values, seed, trial_run, log))
                else:
                    seed_tags = {**tags, "sweep.role": "seed", "sweep.seed": str(seed)}
                    with tracked_run(
                        uri, config.experiment, f"{name}-seed{seed}", tags=seed_tags, parent_run_id=trial_run
                    ) as seed_run:
                        summaries.append(_train_seed(config, trial, values, seed, seed_run, log))
                train_seconds += time.monotonic() - started
        except Pruned as pruned:
            trial.set_user_attr("pruned_reason", pruned.reason)
            client.set_tag(trial_run, STATE_TAG, "PRUNED")
            raise optuna.TrialPruned(pruned.reason) from None
        except SystemExit:  # Lightning's answer to Ctrl-C or SIGTERM: the runs end KILLED, the trial is retried
            raise KeyboardInterrupt from None
        except Exception as error:  # a crash or a run stopped on non-finite losses: failed, study goes on
            reason = f"{type(error).__name__}: {error}"
            trial.set_user_attr("failure_reason", reason)
            client.set_tag(trial_run, STATE_TAG, "FAIL")
            raise
        figures = record(config, trial, trial_run, summaries, train_seconds)
        client.set_tag(trial_run, STATE_TAG, "COMPLETE")
    if config.objective == "accuracy_gain":
        return figures["accuracy_gain"]
    return figures["accuracy_gain"], figures["end_entropy"]


def _params(values: dict) -> list:
    from mlflow.entities import Param

    return [Param(k, str(v)) for k, v in values.items()]


def record(config: SweepConfig, trial, run_id: str, summaries: list[dict], train_seconds: float) -> dict:
    """Mean figures over the trial's seeds: user attributes of the trial, metrics of its run."""
    per_seed = []
    for summary in summaries:
        before, after = summary["heldout_before"]["greedy_accuracy"], summary["heldout_after"]["greedy_accuracy"]
        per_seed.append(
            {
                "accuracy_before": before,
                "accuracy_after": after,
                "accuracy_gain": after - before,
                **stability_figures(summary["history"]),
            }
        )
    figures = {key: statistics.fmean(s[key] for s in per_seed) for key in per_seed[0]}
    figures["train_seconds"] = train_seconds
    for key, value in figures.items():
        trial.set_user_attr(key, value)
    # per seed, and on how many problems: what the trial table's significance groups compare (sweeps.sweep_report)
    heldout = summaries[0].get("config", {}).get("task", {}).get("heldout_size")
    if heldout is not None:  # a summary without its config (older ones) leaves the trial out of the groups
        trial.set_user_attr("accuracy_after_per_seed", [s["accuracy_after"] for s in per_seed])
        trial.set_user_attr("heldout_problems", heldout)
    from mlflow.entities import Metric

    now = int(time.time() * 1000)
    metrics = [Metric(f"trial_{k}", float(v), now, 0) for k, v in figures.items()]
    RetryingClient(config.mlflow_uri).log_batch(run_id, metrics=metrics)
    return figures
