"""The Optuna study: storage, sampler, pruner, heartbeat, the MLflow parent run, and one worker's loop.

Optuna's RDB storage is the distributed engine: every worker (a process here, or the same
command on another machine against a PostgreSQL / MySQL URL) opens the same study with
`load_if_exists` and takes trials from it. Nothing else coordinates them:

- grid mode: Optuna's GridSampler gives trial number i grid point i, so the first grid-size
  trials cover the grid with no point twice; a worker stops when finished + running trials
  reach the study's size;
- a worker killed mid-trial stops sending heartbeats; after `grace_period` seconds another
  worker (or the next start) fails that trial, closes its MLflow run as KILLED and retries it
  once (Optuna's RetryHeartbeatStaleTrialCallback); a worker waits for such trials before it ends;
- the MLflow parent run is found by its tags (study name, role "parent"), so all workers and
  restarts log their trials under one parent.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import optuna
from optuna.trial import TrialState

from harness.common.errors import ConfigError, first_line
from harness.tracking import (
    RetryingClient,
    check_store,
    close_orphan,
    get_or_create_experiment,
    search_tagged,
    tagged_runs,
)
from sweeps.config import SweepConfig


def quiet_optuna(verbose: bool = False) -> None:
    """Optuna's per-trial INFO lines and experimental-feature warnings, only with --verbose."""
    if verbose:
        return
    import warnings

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)


def close_dead_trial(config: SweepConfig):
    """The stale-trial callback: its MLflow run becomes KILLED, then the trial is retried once."""
    retry = optuna.storages.RetryHeartbeatStaleTrialCallback(max_retry=1)

    def callback(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        # The trial's run id is a user attribute once recorded; a worker killed between creating
        # the run and recording its id leaves a RUNNING run found only by its tags (seed runs too).
        client = RetryingClient(config.mlflow_uri)
        tags = {"sweep.study": config.study_name, "sweep.trial": str(trial.number)}
        runs = {run.info.run_id for run in tagged_runs(client, config.experiment, tags, status="RUNNING")}
        runs.add(trial.user_attrs.get("mlflow_run_id"))
        for run_id in sorted(runs - {None}):
            close_orphan(config.mlflow_uri, run_id, "its sweep worker died (no heartbeat)")
        retry(study, trial)

    return callback


def open_storage(config: SweepConfig) -> optuna.storages.RDBStorage:
    """The study's RDB storage with heartbeats; a URL that cannot be opened is a ConfigError."""
    url = config.storage_url
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = {"connect_args": {"timeout": 60}}  # workers wait for the file lock instead of failing
    else:
        engine = {"pool_pre_ping": True}
    try:
        return optuna.storages.RDBStorage(
            url,
            engine_kwargs=engine,
            heartbeat_interval=config.heartbeat_interval,
            grace_period=config.grace_period,
            heartbeat_stale_trial_callback=close_dead_trial(config),
        )
    except Exception as error:  # bad scheme, unknown host, missing driver, refused connection
        raise ConfigError(f"storage {url!r} cannot be opened: {first_line(error)}") from None


def make_sampler(config: SweepConfig, worker: int) -> optuna.samplers.BaseSampler:
    if config.mode == "grid":
        # One seed for every worker: the seed shuffles the grid, and trial number i takes point i
        # of that order, so all workers must share it for the grid to be covered once.
        return optuna.samplers.GridSampler(config.search_grid(), seed=config.seed)
    # each worker its own seed, or parallel workers would propose the same first points
    return optuna.samplers.TPESampler(seed=config.seed + worker)


def make_pruner(config: SweepConfig) -> optuna.pruners.BasePruner:
    if config.pruner == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=config.prune_warmup_steps)
    if config.pruner == "hyperband":
        steps = config.base_train_config({}, config.seed).run.steps
        return optuna.pruners.HyperbandPruner(min_resource=config.prune_every, max_resource=steps)
    return optuna.pruners.NopPruner()


def open_study(config: SweepConfig, worker: int = 0) -> optuna.Study:
    """Create the study or load it (a resumed or shared one); refuse one with another design."""
    directions = ["maximize"] if config.objective == "accuracy_gain" else ["maximize", "maximize"]
    design = {"space": config.space, "mode": config.mode, "objective": config.objective}
    if config.mode == "grid":
        design["grid"] = config.search_grid()
    study = optuna.create_study(
        study_name=config.study_name,
        storage=open_storage(config),
        sampler=make_sampler(config, worker),
        pruner=make_pruner(config),
        directions=directions,
        load_if_exists=True,
    )
    stored = study.user_attrs.get("design")
    if stored is None:
        study.set_user_attr("design", design)
    elif stored != design:
        raise ConfigError(
            f"study {config.study_name!r} in {config.storage_url} was created with {stored}; this sweep is "
            f"{design}. Choose another --study-name or the same settings"
        )
    if len(study.directions) != len(directions):
        raise ConfigError(
            f"study {config.study_name!r} has {len(study.directions)} objective(s); this sweep has {len(directions)}"
        )
    return study


def parent_run(config: SweepConfig, study: optuna.Study) -> str:
    """The study's MLflow parent run, created by whichever worker gets there first."""
    check_store(config.mlflow_uri)
    client = RetryingClient(config.mlflow_uri)
    from harness.tracking import artifact_root  # a database store's artifacts: beside the output folder

    where = artifact_root(config.mlflow_uri, beside=config.output_dir)
    experiment = get_or_create_experiment(client, config.experiment, config.mlflow_uri, where)
    parent_tags = {"sweep.study": config.study_name, "sweep.role": "parent"}

    def oldest():
        runs = search_tagged(
            client, [experiment], parent_tags, status=None, order_by=("attributes.start_time ASC",), max_results=5
        )
        return runs[0].info.run_id if runs else None

    run_id = oldest()
    if run_id is None:
        tags = {
            "sweep.study": config.study_name,
            "sweep.role": "parent",
            "mlflow.runName": config.study_name,
            "sweep.storage": config.storage_url,
        }
        mine = client.create_run(experiment, tags=tags).info.run_id
        run_id = oldest()  # two workers may have raced: all keep the oldest, the others are dropped
        if run_id != mine:
            client.delete_run(mine)
    study.set_user_attr("mlflow_parent_run_id", run_id)
    return run_id


def count_trials(study: optuna.Study) -> tuple[int, list[optuna.trial.FrozenTrial]]:
    """(trials that count as done, trials running or waiting). A failed trial that was retried
    does not count: its retry does."""
    trials = study.get_trials(deepcopy=False)
    retried = {t.system_attrs["failed_trial"] for t in trials if "failed_trial" in t.system_attrs}
    done = sum(1 for t in trials if t.state.is_finished() and t.number not in retried)
    pending = [t for t in trials if t.state in (TrialState.RUNNING, TrialState.WAITING)]
    return done, pending


def stop_when_full(total: int):
    """Optuna callback: stop this worker once finished + running trials fill the study."""

    def callback(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        done, pending = count_trials(study)
        if done + len(pending) >= total:
            study.stop()

    return callback


def run_worker(config: SweepConfig, objective, worker: int = 0, log=print) -> None:
    """Take trials until the study is full; then wait for trials whose workers may have died."""
    study = open_study(config, worker)
    parent = parent_run(config, study)
    total = config.total_trials
    while True:
        done, pending = count_trials(study)
        if done >= total:
            return
        free = total - done - len(pending)
        if free > 0 or any(t.state == TrialState.WAITING for t in pending):
            study.optimize(
                lambda trial: objective(config, _tagged(trial, worker), parent, log),
                n_trials=max(free, 1),
                callbacks=[stop_when_full(total)],
                catch=(Exception,),
                gc_after_trial=False,
            )
            continue
        # The rest is running: in a live worker (it finishes it) or a dead one (its heartbeat stops;
        # after grace_period it is failed and retried, here if nobody else takes it).
        if all(_alive(study, t, config) for t in pending):
            return
        optuna.storages.fail_stale_trials(study)
        time.sleep(min(config.heartbeat_interval, 5))


def _tagged(trial: optuna.Trial, worker: int) -> optuna.Trial:
    trial.set_user_attr("worker", f"{socket.gethostname()}:{os.getpid()}:{worker}")
    return trial


def _alive(study: optuna.Study, trial: optuna.trial.FrozenTrial, config: SweepConfig) -> bool:
    """A running trial is alive when its last heartbeat is at most two intervals old."""
    if trial.state != TrialState.RUNNING:
        return True
    storage = getattr(study._storage, "_backend", study._storage)  # the RDB storage behind Optuna's cache
    grace = storage.grace_period
    storage.grace_period = 2 * config.heartbeat_interval  # ask the storage with a shorter grace
    try:
        return trial._trial_id not in storage._get_stale_trial_ids(study._study_id)
    finally:
        storage.grace_period = grace
