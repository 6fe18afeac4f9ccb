"""The sweep configuration: a YAML file plus command-line flags, checked like the training configs.

    config = load_sweep_config("sweeps/configs/beta_grid.yaml", {"n_trials": 4}, {"run.steps": 50})

A sweep names a search space (`sweeps.spaces`), how to walk it (the grid or sampled trials), the
objective, the pruner, where Optuna and MLflow keep their records, and the base training config
(a profile plus dotted overrides) every trial starts from. `base_train_config(values, seed)` is
that base with a trial's values and seed applied, validated by `harness.schema`.

Nonsense is refused here, before any store is touched: grid values that are not numbers (YAML's
true/false included) or that repeat, an override the sweep would silently replace (another loss
than the space's, a key the grid varies, the seed, output folder or stores the sweep sets), a
pruner that can never act within `run.steps`, an empty study name, more than MAX_WORKERS workers.
`base_fingerprint()` is what a study remembers of the base config, so that reopening it with
another one is refused (`sweeps.study.open_study`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harness.common.errors import ConfigError
from harness.common.uris import DEFAULT_TRACKING_URI, sqlite_url
from harness.config_fields import param, without_added_defaults
from harness.dataclass_config import build_config, load_yaml, to_dict
from harness.profiles import get_profile
from harness.schema import TrainConfig, load_train_config
from harness.tracking import flatten
from sweeps.spaces import SPACES, get_space

OBJECTIVES = ("accuracy_gain", "accuracy_and_entropy")
PRUNERS = ("none", "median", "hyperband")
CONFIG_DIR = Path(__file__).parent / "configs"
MAX_WORKERS = 64
"""Most worker processes one command starts (each imports torch and trains; see also the CPU cap in
sweeps.sweep_command)."""
# Overrides the sweep sets itself for every trial; as overrides they would be dropped without a word.
SET_BY_SWEEP = {
    "run.seed": "the sweep's `seed` key",
    "run.output_dir": "output_dir (--output-dir)",
    "run.tracking_uri": "tracking_uri (--tracking-uri)",
    "run.experiment": "the sweep's `experiment` key",
}
# Base-config keys that do not change a trial's results: where things are written, how they are
# named and how many CPU threads run them. A study may be reopened with other values of these.
NOT_RESULTS = ("run.output_dir", "run.tracking_uri", "run.artifact_root", "run.experiment", "run.run_name")
NOT_RESULTS += ("run.threads", "run.tags", "run.checkpoint_every", "run.rollout_samples")


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
    """Folder of the trials' run directories, the worker logs, the figures and (by default) the Optuna storage."""
    storage: str | None = None
    """Optuna RDB storage URL: sqlite:///path, postgresql://user@host/db, mysql+pymysql://... (null:
    sqlite:///<output_dir>/optuna.db)."""
    tracking_uri: str | None = None
    """MLflow tracking URI (null: sqlite:///mlflow.db in the current folder, the store that harness train
    and harness leaderboard use by default, so the leaderboard sees the sweep's trials)."""
    experiment: str = "ce-gppo-sweeps"
    """MLflow experiment of the parent and trial runs."""
    workers: int = param(1, ge=1, le=MAX_WORKERS)
    """Worker processes on this machine (each trains one trial at a time); fewer are started when fewer
    trials are left to run or the machine has fewer than workers / 4 CPU cores (a note says so)."""
    heartbeat_interval: int = param(30, ge=1)
    """Seconds between a running trial's heartbeats in the storage."""
    grace_period: int = param(120, ge=1)
    """Seconds without a heartbeat after which a trial of another machine counts as dead; it is failed and
    retried (a dead worker of this machine is recognised at once, by its process)."""

    def __post_init__(self):
        space = get_space(self.space)
        if not self.study_name.strip():
            raise ConfigError("study_name is empty; give the study a name (--study-name NAME)")
        get_profile(self.profile)
        if self.mode == "grid":
            self._check_grid(space)
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
        self._check_overrides(space)
        steps = self.base_train_config({}, self.seed).run.steps  # the base config must be valid on its own
        if self.mode == "grid":
            self._check_grid_points()
        if self.pruner != "none" and self.prune_every > steps:
            raise ConfigError(
                f"prune_every={self.prune_every} is more than run.steps={steps}: the {self.pruner} pruner would "
                "never see a value; lower prune_every or use pruner: none"
            )
        if self.pruner != "none" and self.prune_warmup_steps >= steps:
            raise ConfigError(
                f"prune_warmup_steps={self.prune_warmup_steps} leaves no step of run.steps={steps} to prune at; "
                "lower it or use pruner: none"
            )

    def _check_grid(self, space) -> None:
        grid = self.grid if self.grid is not None else space.default_grid()
        unknown = sorted(set(grid) - set(space.keys))
        if unknown:
            raise ConfigError(f"grid: {', '.join(unknown)} not in space {self.space} ({', '.join(space.keys)})")
        empty = [key for key, values in grid.items() if not values]
        if not grid or empty:
            raise ConfigError(f"grid is empty{' for ' + ', '.join(empty) if empty else ''}; give each key values")
        for key, values in grid.items():
            check_grid_values(key, values)
            p = space.param(key)
            outside = [v for v in values if not p.low <= v <= p.high]
            if outside:
                raise ConfigError(f"grid {key}: {outside} outside the space's range [{p.low}, {p.high}]")

    def _check_overrides(self, space) -> None:
        """Refuse an override the sweep would replace without a word (see SET_BY_SWEEP)."""
        overrides = flat_overrides(self.overrides)
        name = overrides.get("loss.name", space.loss)
        if name != space.loss:
            raise ConfigError(
                f"overrides: loss={name!r} conflicts with space {self.space}, whose trials train {space.loss}; "
                f"choose a space that trains it ({', '.join(SPACES)}) or drop the override"
            )
        varied = list(self.search_grid()) if self.mode == "grid" else list(self.params or space.keys)
        for key in overrides:
            if key in varied:
                raise ConfigError(f"overrides: {key} is what the sweep varies ({self.mode} mode); drop the override")
            if key in SET_BY_SWEEP:
                raise ConfigError(f"overrides: {key} is set by the sweep for every trial; use {SET_BY_SWEEP[key]}")
        if self.pruner != "none" and overrides.get("run.eval_every", self.prune_every) != self.prune_every:
            raise ConfigError(
                f"overrides: run.eval_every={overrides['run.eval_every']} conflicts with prune_every="
                f"{self.prune_every} (the pruner's checks are the evaluations); set prune_every instead"
            )

    def _check_grid_points(self) -> None:
        """Build every grid point's training config (its loss included) before the first trial: a point the
        loss refuses (clip_cov_lb above an overridden clip_cov_ub) would otherwise fail as a trial, and a
        sweep whose every trial failed on its configuration would end "finished"."""
        for point in grid_points(self.search_grid()):
            try:
                self.base_train_config(point, self.seed)
            except ConfigError as error:
                shown = ", ".join(f"{key}={value:g}" for key, value in point.items())
                raise ConfigError(f"grid point {shown}: {error}") from None

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
        # percent-encoded: a '?', '#' or '%' in the folder's name stays part of the path
        return self.storage or sqlite_url(Path(self.output_dir) / "optuna.db")

    @property
    def mlflow_uri(self) -> str:
        return self.tracking_uri or DEFAULT_TRACKING_URI

    def base_train_config(self, values: dict[str, Any], seed: int, output_dir: str | None = None) -> TrainConfig:
        """The training config of one trial seed: profile -> overrides -> the trial's values."""
        layer = {**flat_overrides(self.overrides), **values, "run.seed": seed}
        layer.pop("loss.name", None)  # the space's loss (checked equal), given as the loss name below
        layer["loss"] = get_space(self.space).loss
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

    def base_fingerprint(self) -> tuple[str, dict[str, Any]]:
        """(a short hash, the keys it covers) of the resolved base training config, leaving out the keys
        that do not change results (NOT_RESULTS): what a study remembers of the trials' settings."""
        flat = without_added_defaults(TrainConfig, flatten(to_dict(self.base_train_config({}, self.seed))))
        kept = {k: v for k, v in sorted(flat.items()) if not k.startswith(NOT_RESULTS)}
        digest = hashlib.sha256(json.dumps(kept, sort_keys=True, default=str).encode()).hexdigest()[:16]
        return digest, kept


def grid_points(grid: dict[str, list[float]]) -> list[dict[str, float]]:
    """Every combination of the grid's values, as {key: value} (the points GridSampler walks)."""
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[key] for key in keys))]


def check_grid_values(key: str, values: Any) -> None:
    """Grid values are a list of distinct numbers: YAML's true / false would be trained as 1 and 0,
    and a repeated value would train the same point twice."""
    if not isinstance(values, (list, tuple)):
        raise ConfigError(f"grid {key}: {values!r} is not a list of numbers; write [0, 0.5]")
    seen = set()
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            kind = "a boolean" if isinstance(value, bool) else type(value).__name__
            raise ConfigError(f"grid {key}: {value!r} is {kind}, not a number; grid values are numbers such as 0.5")
        number = float(value)
        if number in seen:
            raise ConfigError(f"grid {key}: {value!r} appears twice; give each value once")
        if not math.isnan(number):
            seen.add(number)


def flat_overrides(overrides: dict[str, Any]) -> dict[str, Any]:
    """Dotted overrides with `loss: NAME` as loss.name and nested sections ({loss: {beta1: 0}}) flattened."""
    flat: dict[str, Any] = {}
    for key, value in overrides.items():
        if key == "loss" and not isinstance(value, dict):
            flat["loss.name"] = value
        elif isinstance(value, dict):
            flat.update(flatten(value, f"{key}."))
        else:
            flat[key] = value
    return flat


def load_sweep_config(path: str | None, values: dict[str, Any], train_overrides: dict[str, Any]) -> SweepConfig:
    """The sweep file (or the defaults), then sweep flags, then dotted training overrides."""
    data = load_yaml(path) if path else {}
    data = {**data, **{k: v for k, v in values.items() if v is not None}}
    if isinstance(data.get("grid"), dict):  # before the type check, whose message would not name the value
        for key, grid_values in data["grid"].items():
            check_grid_values(key, grid_values)
    if train_overrides:
        overrides = data.get("overrides") or {}
        if not isinstance(overrides, dict):
            raise ConfigError(f"overrides must be a section of dotted keys, got {overrides!r}")
        data["overrides"] = {**overrides, **train_overrides}
    return build_config(SweepConfig, data)
