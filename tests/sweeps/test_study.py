"""Sweeps end to end: MLflow nesting, pruned and failed trials on the tiny profile with very short
trials; workers sharing one study (SQLite, and two sweeps at once on PostgreSQL) and the worker count
with fake training (tests/sweeps/fake_worker.py). Kills and signals: test_signals.py."""

import json
import os
import subprocess
import sys
from pathlib import Path

import mlflow
import optuna
from optuna.trial import TrialState

from harness.common.uris import sqlite_url
from sweeps import objective as objective_module
from sweeps import study as study_module
from sweeps import sweep_command as cli
from sweeps.config import load_sweep_config
from sweeps.objective import run_trial
from sweeps.study import run_worker
from sweeps.sweep_command import run_sweep

HERE = Path(__file__).parent

SHORT = {"run.steps": 3, "rollout.prompts_per_step": 4, "algo.mini_batches": 1, "run.checkpoint_every": 3}
BETA1 = [0.0, 0.5, 1.0]


def sweep_config(tmp_path, name, **values):
    grid = values.pop("grid", {"loss.beta1": BETA1, "loss.beta2": [1.0]})
    base = {"study_name": name, "grid": grid, "output_dir": str(tmp_path / name), **values}
    base.setdefault("tracking_uri", sqlite_url(tmp_path / "mlflow.db"))
    return load_sweep_config(None, base, SHORT)


def trials_of(config):
    return optuna.load_study(study_name=config.study_name, storage=config.storage_url).get_trials()


def children(client, experiment, parent):
    query = f"tags.`mlflow.parentRunId` = '{parent}'"
    return client.search_runs([experiment], query)


def test_three_trials_nest_under_one_parent_with_curves_and_stability(tmp_path, mlflow_server):
    config = sweep_config(tmp_path, "three", tracking_uri=mlflow_server)
    lines = []
    assert run_sweep(config, log=lines.append) == 0
    client = mlflow.MlflowClient(mlflow_server)
    experiment = client.get_experiment_by_name(config.experiment).experiment_id
    (parent,) = client.search_runs([experiment], "tags.`sweep.study` = 'three' and tags.`sweep.role` = 'parent'")
    assert parent.info.status == "FINISHED" and "sweep.best_trial" in parent.data.tags
    artifacts = {a.path for a in client.list_artifacts(parent.info.run_id)}
    assert {"trials.csv", "trials.md", "history.png", "grid_end_entropy.png", "grid_accuracy_gain.png"} <= artifacts
    runs = children(client, experiment, parent.info.run_id)
    assert len(runs) == 3 and {r.info.status for r in runs} == {"FINISHED"}
    assert sorted(float(r.data.params["loss.beta1"]) for r in runs) == BETA1
    for run in runs:
        assert float(run.data.params["sweep.loss.beta1"]) == float(run.data.params["loss.beta1"])
        assert [m.step for m in client.get_metric_history(run.info.run_id, "entropy")] == [0, 1, 2]
        for key in (
            "trial_end_entropy",
            "trial_min_entropy",
            "trial_max_ppo_kl",
            "trial_max_grad_norm",
            "trial_grad_norm_spikes",
            "trial_skipped_updates",
            "trial_accuracy_gain",
        ):
            assert key in run.data.metrics, key
    for trial in trials_of(config):
        assert trial.state == TrialState.COMPLETE
        assert trial.user_attrs["mlflow_run_id"] in {r.info.run_id for r in runs}
        assert {
            "end_entropy",
            "min_entropy",
            "max_ppo_kl",
            "mean_ppo_kl",
            "max_grad_norm",
            "grad_norm_spikes",
            "skipped_updates",
            "accuracy_gain",
        } <= set(trial.user_attrs)
    report = "\n".join(lines)
    assert "best trial:" in report and "optuna-dashboard sqlite:///" in report and "trial  state" in report


def test_a_pruned_and_a_failing_trial_are_recorded_and_the_study_finishes(tmp_path, monkeypatch):
    class PruneTrialTwo(optuna.pruners.BasePruner):
        def prune(self, study, trial):
            return trial.number == 2

    real_train = objective_module.train

    def train_or_fail(config, **kwargs):
        if "trial0001" in config.run.output_dir:
            raise RuntimeError("boom in trial 1")
        return real_train(config, **kwargs)

    monkeypatch.setattr(study_module, "make_pruner", lambda config: PruneTrialTwo())
    monkeypatch.setattr(objective_module, "train", train_or_fail)
    config = sweep_config(tmp_path, "prune", pruner="median", prune_every=1)
    run_worker(config, run_trial, log=lambda line: None)
    states = {t.number: t.state for t in trials_of(config)}
    assert states == {0: TrialState.COMPLETE, 1: TrialState.FAIL, 2: TrialState.PRUNED}
    trials = trials_of(config)
    assert trials[1].user_attrs["failure_reason"] == "RuntimeError: boom in trial 1"
    assert trials[2].user_attrs["pruned_reason"].startswith("pruned at step 0")
    client = mlflow.MlflowClient(config.mlflow_uri)
    failed, pruned = (client.get_run(trials[i].user_attrs["mlflow_run_id"]) for i in (1, 2))
    assert failed.info.status == "FAILED" and failed.data.tags["sweep.state"] == "FAIL"
    assert "boom in trial 1" in failed.data.tags["harness.failure_reason"]
    assert pruned.info.status == "KILLED" and pruned.data.tags["sweep.state"] == "PRUNED"


def fake_sweep(config_file, cwd):
    """`harness sweep --config FILE` whose workers' training is a fake (no model): the command, workers,
    Optuna and MLflow are real, a trial takes well under a second. The first trial waits for a second
    worker's, so that two workers share the study."""
    env = {**os.environ, "PYTHONPATH": str(HERE), "FAKE_TRAIN_BARRIER": "2"}
    command = [sys.executable, str(HERE / "fake_sweep.py"), "sweep", "--config", str(config_file)]
    return subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def write_config(tmp_path, name, **values):
    path = tmp_path / f"{name}.yaml"
    data = {
        "study_name": name,
        "grid": {"loss.beta1": [0.0, 1.0], "loss.beta2": [0.5, 1.0]},
        "overrides": {"run.steps": 2, "warmstart.steps": 0},
        "output_dir": str(tmp_path / name),
        **values,
    }
    path.write_text(json.dumps(data))  # JSON is YAML
    return path


def assert_grid_once(config, workers):
    trials = optuna.load_study(study_name=config.study_name, storage=config.storage_url).get_trials()
    assert len(trials) == 4 and {t.state for t in trials} == {TrialState.COMPLETE}
    points = [(t.params["loss.beta1"], t.params["loss.beta2"]) for t in trials]
    assert len(set(points)) == 4  # no parameter set twice
    assert len({t.user_attrs["worker"] for t in trials}) == workers  # every worker trained


def test_two_workers_on_one_sqlite_storage_cover_the_grid_once_in_the_default_store(tmp_path):
    path = write_config(tmp_path, "pair", workers=2)
    proc = fake_sweep(path, tmp_path)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    assert_grid_once(load_sweep_config(str(path), {}, {}), workers=2)
    # harness train's and harness leaderboard's default store, in the folder the command ran in
    assert (tmp_path / "mlflow.db").is_file() and "at sqlite:///mlflow.db" in out


def test_two_sweeps_at_once_on_one_postgresql_study_with_an_mlflow_server_on_it(
    tmp_path, postgres_url, mlflow_server_postgres
):
    path = write_config(tmp_path, "pg", storage=postgres_url, tracking_uri=mlflow_server_postgres)
    first, second = fake_sweep(path, tmp_path), fake_sweep(path, tmp_path)
    for proc in (first, second):
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
    config = load_sweep_config(str(path), {}, {})
    assert_grid_once(config, workers=2)
    client = mlflow.MlflowClient(mlflow_server_postgres)
    experiment = client.get_experiment_by_name(config.experiment).experiment_id
    parent = optuna.load_study(study_name="pg", storage=postgres_url).user_attrs["mlflow_parent_run_id"]
    assert len(children(client, experiment, parent)) == 4
    assert client.get_run(parent).info.status == "FINISHED"
    assert not [r for r in client.search_runs([experiment], "attributes.status = 'RUNNING'")]


def test_more_workers_than_trials_start_one_per_trial(tmp_path, monkeypatch):
    started = []
    monkeypatch.setattr(cli, "start_workers", lambda config, count: started.append(count) or [])
    config = load_sweep_config(
        None,
        {
            "study_name": "many",
            "grid": {"loss.beta1": [0.0, 1.0]},
            "workers": 16,
            "output_dir": str(tmp_path),
            "tracking_uri": sqlite_url(tmp_path / "mlflow.db"),
        },
        {"run.steps": 2, "warmstart.steps": 0},
    )
    lines = []
    run_sweep(config, log=lines.append)
    assert started == [2] and "note: starting 2 worker(s), not 16: 2 trial(s) left to run" in lines


def test_a_sweep_of_asynchronous_trials(tmp_path):
    """Trials with rollout.staleness 1: each trial's training starts and stops its own rollout worker."""
    config = load_sweep_config(
        None,
        {
            "study_name": "async",
            "grid": {"loss.beta1": [0.0, 1.0], "loss.beta2": [1.0]},
            "output_dir": str(tmp_path / "async"),
            "tracking_uri": sqlite_url(tmp_path / "mlflow.db"),
        },
        {**SHORT, "rollout.staleness": 1},
    )
    assert run_sweep(config, log=lambda line: None) == 0
    assert [t.state for t in trials_of(config)] == [TrialState.COMPLETE] * 2
    client = mlflow.MlflowClient(config.tracking_uri)
    experiment = client.get_experiment_by_name(config.experiment).experiment_id
    runs = client.search_runs([experiment], "tags.`sweep.role` != 'parent'")
    trained = [r for r in runs if "staleness_max" in r.data.metrics]
    assert len(trained) == 2 and all(r.data.params["rollout.staleness"] == "1" for r in trained)
    assert all(r.data.metrics["staleness_max"] == 1 for r in trained)  # the last step's lag
