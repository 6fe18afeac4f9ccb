"""Every registered loss trains end to end on the tiny profile and lands in a real MLflow server."""

import json

import mlflow
import pytest

from algorithms import LOSSES
from harness.cli import main

STEP_METRICS = [
    "reward_mean",
    "reward_std",
    "accuracy",
    "response_length",
    "entropy",
    "ppo_kl",
    "grad_norm",
    "clip_frac",
    "clip_frac_high",
    "clip_frac_low",
    "ratio_mean",
    "ratio_max",
    "lr",
    "quadrant_frac_pa_hp",
    "quadrant_frac_pa_lp",
    "quadrant_frac_na_hp",
    "quadrant_frac_na_lp",
    "quadrant_grad_share_na_lp",
    "rollout_tokens_per_s",
    "update_tokens_per_s",
    "truncated_frac",
    "reward_suspect_frac",
    "reward_suspect_credited_frac",
]
SMALL = ["--run.steps", "2", "--rollout.prompts_per_step", "8", "--algo.mini_batches", "2"]


@pytest.mark.parametrize("loss", LOSSES)
def test_every_loss_trains_on_tiny_and_is_tracked(loss, tmp_path, mlflow_server, capsys):
    out = tmp_path / loss
    extra = ["--algo.kl_coef", "0.01"] if loss == "grpo" else []  # exercise the reference/KL path once
    if loss == "dapo":  # the 80/20 rule on top of a loss, once
        extra = ["--algo.top_entropy_quantile", "0.2"]
    code = main(
        [
            "train",
            "--profile",
            "tiny",
            "--loss",
            loss,
            "--output-dir",
            str(out),
            "--tracking-uri",
            mlflow_server,
            *SMALL,
            *extra,
        ]
    )
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["steps_completed"] == 2
    assert [h["step"] for h in summary["history"]] == [0, 1]
    assert summary["config"]["loss"]["name"] == loss
    for key in ("greedy_accuracy", "sampled_accuracy"):
        assert 0 <= summary["heldout_before"][key] <= 1 and 0 <= summary["heldout_after"][key] <= 1
    assert (out / "model" / "config.json").is_file()
    start = summary["starting_policy"]  # the warm-started policy this run began from, by its cache key
    assert start["warm_start_key"] == summary["warm_start"]["key"] and start["model"] == "tiny"
    assert start["greedy_accuracy"] >= 0.35 and 0 < start["steps"] <= summary["config"]["warmstart"]["steps"]
    assert f"starting policy     warm start {start['warm_start_key']} of tiny" in capsys.readouterr().out

    client = mlflow.MlflowClient(mlflow_server)
    run = client.get_run(summary["mlflow_run_id"])
    assert run.info.status == "FINISHED"
    missing = [m for m in STEP_METRICS if m not in run.data.metrics]
    assert not missing, missing
    if loss == "grpo":
        assert "kl_ref" in run.data.metrics
    if loss == "dapo":  # about 80% of the tokens get no gradient from the 80/20 rule
        assert 0.6 < run.data.metrics["top_entropy_masked_frac"] < 0.85
    if loss.endswith("_erc"):  # the entropy-ratio mask's share, beside the clip's
        assert 0 <= run.data.metrics["entropy_mask_frac"] <= 1 and "dual_clip_frac" in run.data.metrics
    assert len(client.get_metric_history(run.info.run_id, "entropy")) == 2
    assert run.data.params["loss.name"] == loss and "optim.lr" in run.data.params
    assert run.data.params["starting_policy.warm_start_key"] == start["warm_start_key"]
    assert run.data.params["starting_policy.steps"] == str(start["steps"])
    assert run.data.tags["starting_policy"].startswith(f"warm start {start['warm_start_key']} of tiny (greedy held-out")
    # the numerical environment: env.* tags from the start, the same in summary.json
    tags = {k.removeprefix("env."): v for k, v in run.data.tags.items() if k.startswith("env.")}
    assert tags["device"] == "cpu" and tags["dtype"] == "float32" and tags["backend"] == "hf"
    assert tags["data_parallel"] == "1" and tags["batch_size"] and tags["torch"] and tags["transformers"]
    assert summary["environment"] == tags
    artifacts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert {"summary.json", "config.yaml", "rollouts.jsonl", "reward_suspects.jsonl"} <= artifacts
