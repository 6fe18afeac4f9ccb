"""The Optuna study: storage, sampler, pruner, heartbeat, the MLflow parent run, and one worker's loop.

Optuna's RDB storage is the distributed engine: every worker (a process here, or the same
command on another machine against a PostgreSQL / MySQL URL) opens the same study with
`load_if_exists` and takes trials from it. Nothing else coordinates them:

- grid mode: Optuna's GridSampler gives trial number i grid point i, so the first grid-size
  trials cover the grid with no point twice; a worker stops when finished + running trials
  reach the study's size;
- a trial failed by its environment (worker killed or interrupted, disk full) is retried, see
  `sweeps.recovery`: at once when its worker on this machine is gone, after `grace_period`
  seconds without a heartbeat for a worker elsewhere; a worker waits for such trials before it ends;
- the study remembers its design (space, mode, objective, grid, seeds per trial and a hash of the
  base training config): reopening it with another one is refused;
- the MLflow parent run is found by its tags (study name, role "parent"), so all workers and
  restarts log their trials under one parent.

The storage is checked before Optuna touches it: a database of someone else (an MLflow store) is
refused read-only, and a server that does not answer fails in seconds (the drivers' timeouts and
a deadline). Store URLs are shown and stored with their password masked.
"""

from __future__ import annotations

import time

import optuna
from optuna.trial import TrialState

from harness.common.errors import ConfigError, TrackingError, first_line
from harness.common.stores import check_database, engine_timeouts, refuse_foreign_store
from harness.common.uris import redact, sqlite_path
from harness.tracking import RetryingClient, check_store, get_or_create_experiment, search_tagged
from sweeps.config import SweepConfig
from sweeps.recovery import EnvironmentFailure, close_dead_trial, fail_dead_trials, guarded, process_gone

STORE_TIMEOUT_S = 5.0
"""Seconds a storage server gets to answer the first connection (the check takes at most 3 x this)."""
_CREATE_RACE = ("already exists", "duplicate key", "Duplicate entry", "UniqueViolation")
ENGINE_TIMEOUT_S = 60.0
"""The drivers' timeouts for the study's own connections (long enough for a row lock held by another worker)."""


def quiet_optuna(verbose: bool = False) -> None:
    """Optuna's per-trial INFO lines and experimental-feature warnings, only with --verbose."""
    if verbose:
        return
    import warnings

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)


def check_storage(config: SweepConfig) -> None:
    """The storage can be reached (in seconds) and is not someone else's database; nothing is written
    but the folder of a SQLite file."""
    url, shown = config.storage_url, redact(config.storage_url)
    db = sqlite_path(url)
    if db is not None:
        try:
            db.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError(f"--storage {shown} cannot be opened: {error.strerror or error}: {db.parent}") from None
    refuse_foreign_store(url, "optuna", "--storage", STORE_TIMEOUT_S)  # read-only, before Optuna writes
    if db is None:
        try:
            check_database(url, STORE_TIMEOUT_S)  # a silent server fails here in seconds, not minutes
        except Exception as error:
            raise ConfigError(f"--storage {shown} cannot be opened: {redact(first_line(error))}") from None


def open_storage(config: SweepConfig) -> optuna.storages.RDBStorage:
    """The study's RDB storage with heartbeats; a URL that cannot be opened is a one-line error."""
    check_storage(config)
    url = config.storage_url
    if sqlite_path(url) is not None:
        engine = {"connect_args": {"timeout": 60}}  # workers wait for the file lock instead of failing
    else:
        engine = {"pool_pre_ping": True, "connect_args": engine_timeouts(url, ENGINE_TIMEOUT_S)}
    for attempt in range(3):
        try:
            return optuna.storages.RDBStorage(
                url,
                engine_kwargs=engine,
                heartbeat_interval=config.heartbeat_interval,
                grace_period=config.grace_period,
                heartbeat_stale_trial_callback=close_dead_trial(config),
            )
        except Exception as error:  # bad scheme, unknown host, missing driver, refused connection
            # Two commands started at once on a fresh database both create Optuna's tables; the
            # loser's CREATE fails on the winner's: a second look finds them made.
            if attempt < 2 and any(mark in str(error) for mark in _CREATE_RACE):
                time.sleep(1.0)
                continue
            raise ConfigError(f"--storage {redact(url)} cannot be opened: {redact(first_line(error))}") from None


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


def study_design(config: SweepConfig) -> tuple[dict, dict]:
    """(what a study must keep across reopenings, the base config's result-changing keys)."""
    digest, base = config.base_fingerprint()
    design = {"space": config.space, "mode": config.mode, "objective": config.objective}
    if config.mode == "grid":
        design["grid"] = config.search_grid()
    design.update(seeds_per_trial=config.seeds_per_trial, base_config=digest)
    return design, base


def _differences(stored: dict, design: dict, stored_base: dict | None, base: dict) -> list[str]:
    """Readable differences between a study's design and this sweep's, for the refusal."""
    lines = [
        f"{key} {stored[key]} (here {design[key]})"
        for key in design
        if key != "base_config" and key in stored and stored[key] != design[key]
    ]
    if stored.get("base_config", design["base_config"]) != design["base_config"]:
        if stored_base is None:
            lines.append("another base training config")
        else:
            changed = [k for k in sorted(set(stored_base) | set(base)) if stored_base.get(k) != base.get(k)]
            lines += [f"{k} {stored_base.get(k, '(default)')} (here {base.get(k, '(default)')})" for k in changed[:8]]
    return lines


def open_study(config: SweepConfig, worker: int = 0) -> optuna.Study:
    """Create the study or load it (a resumed or shared one); refuse one with another design.

    A study created before seeds_per_trial and the base config were part of the design is checked
    on what it stored and then given the rest."""
    directions = ["maximize"] if config.objective == "accuracy_gain" else ["maximize", "maximize"]
    design, base = study_design(config)
    study = optuna.create_study(
        study_name=config.study_name,
        storage=open_storage(config),
        sampler=make_sampler(config, worker),
        pruner=make_pruner(config),
        directions=directions,
        load_if_exists=True,
    )
    stored = study.user_attrs.get("design")
    if stored is not None:
        differences = _differences(stored, design, study.user_attrs.get("base_config"), base)
        if differences:
            raise ConfigError(
                f"study {config.study_name!r} in {redact(config.storage_url)} was made by another sweep: "
                f"{'; '.join(differences)}. Choose another --study-name or the same settings"
            )
    if stored != design:
        study.set_user_attr("design", design)
        study.set_user_attr("base_config", base)
    if len(study.directions) != len(directions):
        raise ConfigError(
            f"study {config.study_name!r} has {len(study.directions)} objective(s); this sweep has {len(directions)}"
        )
    return study


def check_tracking(config: SweepConfig) -> None:
    """The MLflow store is usable and is not the study's (or another library's) database."""
    uri = config.mlflow_uri
    same = sqlite_path(uri) is not None and sqlite_path(uri) == sqlite_path(config.storage_url)
    if same or (sqlite_path(uri) is None and uri == config.storage_url):
        raise ConfigError(
            f"--tracking-uri and --storage are one database ({redact(uri)}); MLflow and Optuna each need their own"
        )
    if uri.split(":", 1)[0].split("+")[0] in ("sqlite", "postgresql", "mysql", "mssql"):
        refuse_foreign_store(uri, "mlflow", "--tracking-uri", STORE_TIMEOUT_S)
    try:
        check_store(uri)
    except TrackingError as error:
        raise TrackingError(redact(str(error))) from None


def parent_run(config: SweepConfig, study: optuna.Study) -> str:
    """The study's MLflow parent run, created by whichever worker gets there first; one that an earlier
    command ended (KILLED, FAILED) is RUNNING again while this one works on the study."""
    check_tracking(config)
    client = RetryingClient(config.mlflow_uri)
    from harness.tracking import artifact_root  # a database store's artifacts: beside the output folder

    where = artifact_root(config.mlflow_uri, beside=config.output_dir)
    experiment = get_or_create_experiment(client, config.experiment, config.mlflow_uri, where)
    parent_tags = {"sweep.study": config.study_name, "sweep.role": "parent"}

    def oldest():
        runs = search_tagged(
            client, [experiment], parent_tags, status=None, order_by=("attributes.start_time ASC",), max_results=5
        )
        return runs[0] if runs else None

    run = oldest()
    if run is None:
        tags = {
            "sweep.study": config.study_name,
            "sweep.role": "parent",
            "mlflow.runName": config.study_name,
            "sweep.storage": redact(config.storage_url),
        }
        mine = client.create_run(experiment, tags=tags).info.run_id
        run = oldest()  # two workers may have raced: all keep the oldest, the others are dropped
        if run.info.run_id != mine:
            client.delete_run(mine)
    elif run.info.status in ("KILLED", "FAILED"):
        client.update_run(run.info.run_id, status="RUNNING")
    study.set_user_attr("mlflow_parent_run_id", run.info.run_id)
    return run.info.run_id


def count_trials(study: optuna.Study) -> tuple[int, list[optuna.trial.FrozenTrial]]:
    """(trials that count as done, trials running or waiting). A failed trial that was retried
    does not count: its retry does (every trial of a retry chain is in its retry_history)."""
    trials = study.get_trials(deepcopy=False)
    retried = {n for t in trials for n in t.system_attrs.get("retry_history", ())}
    retried |= {t.system_attrs["failed_trial"] for t in trials if "failed_trial" in t.system_attrs}
    done = sum(1 for t in trials if t.state.is_finished() and t.number not in retried)
    pending = [t for t in trials if t.state in (TrialState.RUNNING, TrialState.WAITING)]
    return done, pending


def stop_when_full(total: int, failures: list[str]):
    """Optuna callback: stop this worker once finished + running trials fill the study, or after a
    trial failed for a reason outside it (the next trial would fail the same way)."""

    def callback(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        done, pending = count_trials(study)
        if failures or done + len(pending) >= total:
            study.stop()

    return callback


def run_worker(config: SweepConfig, objective, worker: int = 0, log=print) -> None:
    """Take trials until the study is full; then wait for trials of workers that may have died.
    Raises EnvironmentFailure after a trial failed for a reason outside it."""
    study = open_study(config, worker)
    parent = parent_run(config, study)
    total = config.total_trials
    failures: list[str] = []
    while True:
        fail_dead_trials(study, config)  # trials of this machine's dead workers: retried at once
        done, pending = count_trials(study)
        if done >= total:
            return
        free = total - done - len(pending)
        if free > 0 or any(t.state == TrialState.WAITING for t in pending):
            study.optimize(
                guarded(config, objective, worker, parent, log, failures),
                n_trials=max(free, 1),
                callbacks=[stop_when_full(total, failures)],
                catch=(Exception,),
                gc_after_trial=False,
            )
            if failures:
                raise EnvironmentFailure(failures[0])
            continue
        # The rest is running. A live worker of this machine finishes its trial. A trial of another
        # machine (or of a process this one cannot see) is waited for: it finishes, or its heartbeat
        # goes stale and it is failed and retried (here, if no other worker takes it).
        if all(process_gone(t.user_attrs.get("worker_process")) is False for t in pending):
            return
        optuna.storages.fail_stale_trials(study)
        time.sleep(min(config.heartbeat_interval, 5))
