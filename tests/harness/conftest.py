"""Fixtures of the harness tests."""

import json

import mlflow
import pytest

from harness.cli import main

MATH = ["aime24", "aime25", "hmmt25", "math500", "amc23"]


@pytest.fixture
def eval_math_suite():
    """`eval_math_suite(model, new_tokens, limit, tmp_path, mlflow_server)`: `harness eval` on the five
    math benchmarks, checked end to end (test_evaluate.py: tiny; test_smol_integration.py: SmolLM2)."""
    return _eval_math_suite


def _eval_math_suite(model: str, new_tokens: str, limit: int, tmp_path, mlflow_server) -> None:
    """`harness eval` of `model` on the five math benchmarks: results, samples and MLflow agree."""
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
