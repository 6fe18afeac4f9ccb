"""The sweep configuration: a YAML file plus command-line flags, checked like the training configs.

    config = load_sweep_config("sweeps/configs/beta_grid.yaml", {"n_trials": 4}, {"run.steps": 50})

A sweep names a search space (`sweeps.spaces`), how to walk it (the grid or sampled trials), the
objective, the pruner, where Optuna and MLflow keep their records, and the base training config
(a profile plus dotted overrides) every trial starts from. `base_train_config(values, seed)` is
that base with a trial's values and seed applied, validated by `harness.schema`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harness.common.errors import ConfigError
from harness.config import build_config, load_yaml, param
from harness.schema import PROFILES, TrainConfig, load_train_config
from sweeps.spaces import SPACES, get_space

OBJECTIVES = ("accuracy_gain", "accuracy_and_entropy")
PRUNERS = ("none", "median", "hyperband")
CONFIG_DIR = Path(__file__).parent / "configs"


@dataclass(frozen=True)
class SweepConfig:
    study_name: str = "ce-gppo-betas"
    """Optuna study name; also the name of the MLflow parent run. Workers with the same name and
    storage share one study."""
    space: Literal[SPACES] = "ce_gppo"
    """Search space (sweeps.spaces): which loss the trials train and what may vary."""
    mode: Literal["grid", "sample"] = "grid"
    """grid: every point of `grid` once (Optuna's GridSampler); sample: `n_trials` TPE samples of `params`."""
    grid: dict[str, list[float]] | None = None
    """Grid mode: values per dotted key, e.g. {loss.beta1: [0, 0.5]} (null: the space's default grid;
    for ce_gppo the paper's beta1 x beta2 grid, 15 points)."""
    params: list[str] | None = None
    """Sample mode: the space's keys to vary (null: all of them)."""
    n_trials: int | None = param(None, ge=1)
    """Trials in the whole study, over all workers (null: the grid's size; required in sample mode)."""
    seeds_per_trial: int = param(1, ge=1)
    """Training seeds per trial; the objective is their mean. The same seeds in every trial (paired)."""
    seed: int = 0
    """First training seed (a trial runs seed, seed+1, ...); also seeds the TPE sampler."""
    objective: Literal[OBJECTIVES] = "accuracy_gain"
    """accuracy_gain: greedy held-out accuracy after RL minus before (maximised); accuracy_and_entropy:
    that and the end entropy (both maximised, a Pareto front)."""
    pruner: Literal[PRUNERS] = "none"
    """Stop unpromising trials early from the held-out accuracy gain at intermediate steps."""
    prune_every: int = param(20, ge=1)
    """RL steps between the intermediate held-out accuracy checks the pruner sees (steps)."""
    prune_warmup_steps: int = param(0, ge=0)
    """No pruning before this RL step (steps)."""
    profile: str = "tiny"
    """Training profile every trial starts from."""
    overrides: dict[str, Any] = field(default_factory=dict)
    """Dotted training-config overrides applied to the profile for every trial, e.g. {run.steps: 200}."""
    output_dir: str = "runs/sweep"
    """Folder of the trials' run directories, the figures and (by default) both stores."""
    storage: str | None = None
    """Optuna RDB storage URL: sqlite:///path, postgresql://user@host/db, mysql+pymysql://... (null:
    sqlite:///<output_dir>/optuna.db)."""
    tracking_uri: str | None = None
    """MLflow tracking URI (null: sqlite:///<output_dir>/mlflow.db)."""
    experiment: str = "ce-gppo-sweeps"
    """MLflow experiment of the parent and trial runs."""
    workers: int = param(1, ge=1)
    """Worker processes on this machine (each trains one trial at a time)."""
    heartbeat_interval: int = param(30, ge=1)
    """Seconds between a running trial's heartbeats in the storage."""
    grace_period: int = param(120, ge=1)
    """Seconds without a heartbeat after which a trial counts as dead; it is failed and retried once."""

    def __post_init__(self):
        space = get_space(self.space)
        if self.profile not in PROFILES:
            raise ConfigError(f"profile={self.profile!r} is not known; valid: {', '.join(PROFILES)}")
        if self.mode == "grid":
            grid = self.search_grid()
            unknown = sorted(set(grid) - set(space.keys))
            if unknown:
                raise ConfigError(f"grid: {', '.join(unknown)} not in space {self.space} ({', '.join(space.keys)})")
            empty = [key for key, values in grid.items() if not values]
            if not grid or empty:
                raise ConfigError(f"grid is empty{' for ' + ', '.join(empty) if empty else ''}; give each key values")
            for key, values in grid.items():
                p = space.param(key)
                outside = [v for v in values if not p.low <= v <= p.high]
                if outside:
                    raise ConfigError(f"grid {key}: {outside} outside the space's range [{p.low}, {p.high}]")
        else:
            if self.n_trials is None:
                raise ConfigError("n_trials is required in sample mode (how many trials to sample)")
            unknown = sorted(set(self.params or ()) - set(space.keys))
            if unknown or self.params == []:
                raise ConfigError(
                    f"params: {unknown or '[]'} not in space {self.space}; valid: {', '.join(space.keys)}"
                )
        if self.objective == "accuracy_and_entropy" and self.pruner != "none":
            raise ConfigError("pruner: Optuna cannot prune a multi-objective study; use pruner: none")
        self.base_train_config({}, self.seed)  # the base config must be valid on its own

    def search_grid(self) -> dict[str, list[float]]:
        if self.grid is not None:
            return {k: [float(v) for v in values] for k, values in self.grid.items()}
        return {k: list(v) for k, v in get_space(self.space).default_grid().items()}

    @property
    def grid_size(self) -> int:
        size = 1
        for values in self.search_grid().values():
            size *= len(values)
        return size

    @property
    def total_trials(self) -> int:
        return self.n_trials if self.n_trials is not None else self.grid_size

    @property
    def storage_url(self) -> str:
        return self.storage or f"sqlite:///{Path(self.output_dir).resolve()}/optuna.db"

    @property
    def mlflow_uri(self) -> str:
        return self.tracking_uri or f"sqlite:///{Path(self.output_dir).resolve()}/mlflow.db"

    def base_train_config(self, values: dict[str, Any], seed: int, output_dir: str | None = None) -> TrainConfig:
        """The training config of one trial seed: profile -> overrides -> the trial's values."""
        layer = {**self.overrides, **values, "loss": get_space(self.space).loss, "run.seed": seed}
        layer["run.tracking_uri"] = self.mlflow_uri
        layer["run.experiment"] = self.experiment
        if output_dir is not None:
            layer["run.output_dir"] = output_dir
        if self.pruner != "none":
            layer["run.eval_every"] = self.prune_every
        try:
            return load_train_config(self.profile, None, layer)
        except ConfigError as error:
            raise ConfigError(f"sweep base config: {error}") from None


def load_sweep_config(path: str | None, values: dict[str, Any], train_overrides: dict[str, Any]) -> SweepConfig:
    """The sweep file (or the defaults), then sweep flags, then dotted training overrides."""
    data = load_yaml(path) if path else {}
    data = {**data, **{k: v for k, v in values.items() if v is not None}}
    if train_overrides:
        overrides = data.get("overrides") or {}
        if not isinstance(overrides, dict):
            raise ConfigError(f"overrides must be a section of dotted keys, got {overrides!r}")
        data["overrides"] = {**overrides, **train_overrides}
    return build_config(SweepConfig, data)
