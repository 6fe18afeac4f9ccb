"""The leaderboard's significance groups on fabricated MLflow runs whose evaluations carry per-problem
samples: tied rows share the leader's group, a clearly worse row opens group 2, a row on other seeds is
compared unpaired and says so, held-out-only rows are grouped among themselves; md, csv, html, terminal."""

import csv
import io
import json

import mlflow
import numpy as np
import pytest
from mlflow.entities import Metric, Param

from harness.reports.leaderboard import Filters, leaderboard
from harness.tracking import check_store

PROBLEMS, K = 40, 2
DIFFICULTY = np.random.default_rng(0).uniform(0.1, 0.9, PROBLEMS)  # each problem's chance for a GRPO policy


def evaluated_run(client, experiment, loss, seed, shift, tmp_path, rng, score=None):
    """A FINISHED training run (params loss.*, run.seed) and its evaluation with K samples per problem
    (`score`: every sample's score, e.g. NaN, instead of a draw)."""
    run = client.create_run(experiment).info.run_id
    params = {**loss, "model.name": "tiny", "run.steps": "60", "run.seed": str(seed), "task.heldout_size": "200"}
    client.log_batch(run, params=[Param(k, v) for k, v in params.items()])
    client.set_terminated(run, "FINISHED")
    chance = np.clip(DIFFICULTY + shift, 0, 1)
    samples = [
        {
            "benchmark": "arith",
            "id": i,
            "sample": j,
            "scores": {"acc": float(rng.random() < chance[i]) if score is None else score},
        }
        for i in range(PROBLEMS)
        for j in range(K)
    ]
    evaluation = client.create_run(experiment, tags={"harness.train_run_id": run}).info.run_id
    mean = float(np.mean([s["scores"]["acc"] for s in samples]))
    client.log_batch(
        evaluation, metrics=[Metric("eval/arith/acc/avg_at_2", mean, 0, 0), Metric("eval/suite_avg", mean, 0, 0)]
    )
    folder = tmp_path / evaluation / "eval"
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps({"benchmarks": {"arith": {"primary_metric": "acc"}}}))
    (folder / "samples.jsonl").write_text("\n".join(json.dumps(s) for s in samples))
    client.log_artifacts(evaluation, str(folder), "eval")
    client.set_terminated(evaluation, "FINISHED")


def heldout_run(client, experiment, loss, seed, accuracy):
    run = client.create_run(experiment, tags={"sweep.study": "betas"}).info.run_id
    params = {**loss, "model.name": "tiny", "run.steps": "60", "run.seed": str(seed), "task.heldout_size": "200"}
    client.log_batch(
        run,
        params=[Param(k, v) for k, v in params.items()],
        metrics=[Metric("heldout_after_greedy_accuracy", accuracy, 0, 0)],
    )
    client.set_terminated(run, "FINISHED")


def new_store(root):
    """(uri, client, experiment id) of a fresh store in `root`, its artifacts beside it."""
    uri = f"sqlite:///{root}/mlflow.db"
    check_store(uri)
    client = mlflow.MlflowClient(uri)
    return uri, client, client.create_experiment("train", artifact_location=str(root / "artifacts"))


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    root = tmp_path_factory.mktemp("groups")
    uri, client, experiment = new_store(root)
    rng = np.random.default_rng(1)
    for seed in range(3):
        evaluated_run(client, experiment, {"loss.name": "grpo"}, seed, 0.0, root, rng)
        evaluated_run(client, experiment, {"loss.name": "ce_gppo"}, seed, 0.35, root, rng)
        evaluated_run(client, experiment, {"loss.name": "dapo"}, seed, 0.34, root, rng)
    for seed in (7, 8):  # other seeds than everyone else: compared unpaired
        evaluated_run(client, experiment, {"loss.name": "gspo"}, seed, 0.33, root, rng)
    heldout_run(client, experiment, {"loss.name": "cispo"}, 0, 0.80)
    heldout_run(client, experiment, {"loss.name": "gppo"}, 0, 0.30)
    lines = []
    rows = leaderboard(uri, Filters(), str(root / "board"), log=lines.append)
    return rows, root / "board", "\n".join(lines)


def loss_of(label):
    """The loss name of a row label ("grpo · tiny · 60 steps", "ce_gppo(beta1=0.5) · ...")."""
    return label.split(" ")[0].split("(")[0]


def column(folder, name):
    with open(folder / "leaderboard.csv") as f:
        return {loss_of(r["algorithm"]): r[name] for r in csv.DictReader(io.StringIO(f.read()))}


def test_tied_rows_share_the_leaders_group_and_a_worse_row_opens_the_next(board):
    rows, folder, _ = board
    group = column(folder, "group")
    leader = loss_of(rows[0].label)
    assert group[leader] == "1 (leader)" and leader in ("ce_gppo", "dapo", "gspo")
    assert {group["ce_gppo"], group["dapo"]} <= {"1", "1 (leader)"}
    assert group["grpo"] == "2"
    assert group["gspo"].startswith("1") and (leader == "gspo" or group["gspo"].endswith("(unpaired)"))
    versus = column(folder, "vs leader")
    assert versus[leader] == "–" and versus["grpo"].startswith("-3") and "[" in versus["grpo"]


def test_heldout_only_rows_are_grouped_among_themselves_and_say_so(board):
    _, folder, _ = board
    group = column(folder, "group")
    assert group["cispo"] == "held-out · 1 (leader)"
    assert group["gppo"] == "held-out · 2 (unpaired)"  # 80% vs 30% of 200 problems: no tie


def test_the_group_shows_in_markdown_html_and_the_terminal(board):
    _, folder, printed = board
    markdown = (folder / "leaderboard.md").read_text()
    assert "| algorithm | seeds | group | vs leader | arith | Avg |" in markdown
    assert "Holm-Bonferroni-corrected test (over all pairs) at 5% cannot tell from the group's best row" in markdown
    assert "some row outside group 1 in at most 5% of pages" in markdown and "unpaired" in markdown
    assert "| group | vs leader |" in printed and "random-effects interval" in printed
    page = (folder / "leaderboard.html").read_text()
    assert '<td class="lead g1">1 (leader)</td>' in page and '<td class="lead g2">2</td>' in page


def test_a_row_whose_per_problem_scores_are_nan_is_not_grouped_and_the_page_says_why(tmp_path):
    """Its evaluation's samples all NaN: it fell back to its held-out accuracy and became a second
    leader ("held-out · 1 (leader)") with nothing on the page about non-finite scores."""
    uri, client, experiment = new_store(tmp_path)
    rng = np.random.default_rng(2)
    for seed in range(2):
        evaluated_run(client, experiment, {"loss.name": "grpo"}, seed, 0.0, tmp_path, rng, score=float("nan"))
        evaluated_run(client, experiment, {"loss.name": "ce_gppo"}, seed, 0.3, tmp_path, rng)
        evaluated_run(client, experiment, {"loss.name": "dapo"}, seed, 0.0, tmp_path, rng)
    heldout_run(client, experiment, {"loss.name": "cispo"}, 0, 0.5)
    leaderboard(uri, Filters(), str(tmp_path / "board"), log=lambda line: None)
    group = column(tmp_path / "board", "group")
    assert group["ce_gppo"] == "1 (leader)" and group["grpo"] == ""  # not grouped (CSV: empty)
    markdown = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "| grpo · tiny · 60 steps | 2 | – | – |" in markdown
    assert "80 non-finite per-problem scores (NaN or inf) left out of the groups" in markdown
    assert "not grouped, no finite per-problem score: grpo · tiny · 60 steps" in markdown
