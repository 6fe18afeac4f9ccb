"""`harness eval` end to end on CPU (tiny and SmolLM2), and validation during training."""

import json

import mlflow
import pytest

from harness.cli import main

MATH = ["aime24", "aime25", "hmmt25", "math500", "amc23"]


# SmolLM2 generates ~60 tokens/s here: 2 problems per benchmark keep it to a real model's smoke test
@pytest.mark.parametrize("model, new_tokens, limit", [("tiny", "48", 5), ("smollm2-135m-instruct", "24", 2)])
def test_eval_math_suite_writes_results_and_tracks_them(model, new_tokens, limit, tmp_path, mlflow_server):
    out = tmp_path / "eval"
    code = main(
        [
            "eval",
            "--model",
            model,
            "--suite",
            "math",
            "--k",
            "2",
            "--limit",
            str(limit),
            "--max-new-tokens",
            new_tokens,
            "--output-dir",
            str(out),
            "--tracking-uri",
            mlflow_server,
        ]
    )
    assert code == 0
    results = json.loads((out / "results.json").read_text())
    assert sorted(results["benchmarks"]) == sorted(MATH)
    for bench in results["benchmarks"].values():
        assert bench["num_problems"] == limit and bench["num_samples"] == 2 * limit
        assert 0.0 <= bench["metrics"]["acc"]["avg@2"] <= 1.0
    assert results["suite"]["benchmarks"] == MATH
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 5 * limit * 2
    assert {"prompt", "completion", "reference", "correct"} <= set(samples[0])

    client = mlflow.MlflowClient(mlflow_server)
    runs = client.search_runs(
        [client.get_experiment_by_name("ce-gppo-eval").experiment_id], filter_string=f"params.model = '{model}'"
    )
    assert runs, "the evaluation run is in MLflow"
    assert any(key.startswith("eval/") for key in runs[0].data.metrics)
    artifacts = {a.path for a in client.list_artifacts(runs[0].info.run_id, "eval")}
    assert {"eval/results.json", "eval/samples.jsonl"} <= artifacts


def test_unknown_suite_is_one_line_error(capsys):
    assert main(["eval", "--model", "tiny", "--suite", "nope", "--tracking-uri", "none"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nope" in err and "math" in err


def test_validation_during_training(tmp_path):
    out = tmp_path / "run"
    code = main(
        [
            "train",
            "--profile",
            "tiny",
            "--output-dir",
            str(out),
            "--tracking-uri",
            f"sqlite:///{tmp_path}/m.db",
            "--run.steps",
            "2",
            "--rollout.prompts_per_step",
            "8",
            "--algo.mini_batches",
            "2",
            "--run.eval_every",
            "1",
            "--run.eval_suite",
            "arith_l2_compact,amc23",
            "--run.eval_limit",
            "3",
            "--run.eval_max_new_tokens",
            "8",
        ]
    )
    assert code == 0
    history = json.loads((out / "summary.json").read_text())["history"]
    for step in history:
        assert 0 <= step["val_heldout_greedy_accuracy"] <= 1
        assert 0 <= step["val_suite_avg"] <= 1 and "val_amc23_acc" in step
    assert (out / "evals" / "step1" / "results.json").is_file()
