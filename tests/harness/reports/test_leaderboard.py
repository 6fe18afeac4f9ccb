"""harness.reports.leaderboard on fabricated MLflow runs: grouping, evaluation join, ranking, filters."""

import datetime as dt

import mlflow
import pytest

from harness.reports.leaderboard import Filters, leaderboard
from harness.tracking import check_store


def fake_run(client, experiment, loss, seed, heldout, entropy, *, tags=None, suite=None, steps="600"):
    run = client.create_run(experiment, tags=tags or {})
    run_id = run.info.run_id
    for key, value in {**loss, "model.name": "tiny", "run.steps": steps, "run.seed": str(seed)}.items():
        client.log_param(run_id, key, value)
    client.log_metric(run_id, "heldout_before_greedy_accuracy", 0.35)
    client.log_metric(run_id, "heldout_after_greedy_accuracy", heldout)
    client.log_metric(run_id, "stability/end_entropy", entropy)
    for step in range(3):
        client.log_metric(run_id, "entropy", entropy + 0.01 * step, step=step)
    client.set_terminated(run_id, "FINISHED")
    if suite is not None:  # an evaluation of this run
        evaluation = client.create_run(experiment, tags={"harness.train_run_id": run_id})
        client.log_metric(evaluation.info.run_id, "eval/arith/acc/avg_at_4", suite)
        client.log_metric(evaluation.info.run_id, "eval/arith/acc/stderr", 0.02)
        client.log_metric(evaluation.info.run_id, "eval/suite_avg", suite)
        client.set_terminated(evaluation.info.run_id, "FINISHED")
    return run_id


@pytest.fixture
def store(tmp_path):
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    check_store(uri)
    client = mlflow.MlflowClient(uri)
    train = client.create_experiment("train")
    sweeps = client.create_experiment("sweeps")
    grpo, ce = {"loss.name": "grpo"}, {"loss.name": "ce_gppo", "loss.beta1": "0.5", "loss.beta2": "1.0"}
    for seed, (a, b) in enumerate([(0.60, 0.70), (0.64, 0.74)]):
        fake_run(client, train, grpo, seed, a, 0.40, suite=a)
        fake_run(client, train, ce, seed, b, 0.45, suite=b)
    fake_run(client, sweeps, {**ce, "loss.beta1": "0.75"}, 0, 0.9, 0.30, tags={"sweep.study": "betas"})
    unfinished = client.create_run(train)
    client.log_param(unfinished.info.run_id, "loss.name", "dapo")
    return uri, tmp_path


def test_groups_are_ranked_by_avg_with_seeds_and_sources(store):
    uri, tmp_path = store
    lines = []
    rows = leaderboard(uri, Filters(), str(tmp_path / "board"), log=lines.append)
    labels = [r.label for r in rows]
    assert labels == [
        "ce_gppo(beta1=0.75, beta2=1.0) · tiny · 600 steps [sweep betas]",  # held-out 0.9, no suite eval
        "ce_gppo(beta1=0.5, beta2=1.0) · tiny · 600 steps",
        "grpo() · tiny · 600 steps",
    ]
    sweep_row, ce_row, grpo_row = rows
    assert ce_row.seeds == 2 and ce_row.cells["Avg"].mean == pytest.approx(0.72)
    assert ce_row.cells["arith"].mean == pytest.approx(0.72) and ce_row.cells["arith"].se == pytest.approx(
        0.02 / 2**0.5
    )
    assert grpo_row.cells["Avg"].sd == pytest.approx(((0.02**2) * 2) ** 0.5)
    assert "arith" not in sweep_row.cells and sweep_row.stability["end_entropy"] == pytest.approx(0.30)
    assert not any("dapo" in label for label in labels)  # unfinished runs are left out
    for name in ("leaderboard.md", "leaderboard.csv", "leaderboard.html"):
        assert (tmp_path / "board" / name).is_file()
    page = (tmp_path / "board" / "leaderboard.html").read_text()
    assert "data:image/png;base64" in page and "sweep betas" in page


def test_filters_by_experiment_tag_and_date(store):
    uri, tmp_path = store
    only_sweeps = leaderboard(uri, Filters(experiments=("sweeps",)), str(tmp_path / "a"), log=lambda line: None)
    assert len(only_sweeps) == 1
    tagged = leaderboard(uri, Filters(tags=(("sweep.study", "betas"),)), str(tmp_path / "b"), log=lambda line: None)
    assert len(tagged) == 1
    future = Filters(since=dt.date.today() + dt.timedelta(days=1))
    lines = []
    assert leaderboard(uri, future, str(tmp_path / "c"), log=lines.append) == []
    assert "no finished training run" in lines[0]
    assert len(leaderboard(uri, Filters(profile="tiny"), str(tmp_path / "d"), log=lambda line: None)) == 3
    assert leaderboard(uri, Filters(profile="smol"), str(tmp_path / "e"), log=lambda line: None) == []
