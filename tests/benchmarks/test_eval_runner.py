"""The runner with fake samplers: results.json / samples.jsonl contents and MLflow logging."""

import json

import pytest

from benchmarks import evaluate, get_benchmark, log_to_mlflow
from benchmarks.metrics import pass_at_k


def _answers_by_prompt(benchmark, data_dir, limit):
    return {benchmark.prompt(row): row["answer"] for row in benchmark.load(data_dir, limit)}


def test_half_correct_sampler_scores_half(data_dir, tmp_path):
    amc = get_benchmark("amc23")
    answers = _answers_by_prompt(amc, data_dir, 10)
    order = list(answers)

    def sampler(prompts, n):  # right on even-numbered problems, wrong on odd ones
        return [[f"\\boxed{{{answers[p]}}}" if order.index(p) % 2 == 0 else "\\boxed{-1}"] * n for p in prompts]

    results = evaluate([amc], sampler, k=3, limit=10, seed=0, output_dir=tmp_path, data_dir=data_dir, progress=False)
    summary = results["benchmarks"]["amc23"]
    assert summary["metrics"]["acc"]["avg@3"] == pytest.approx(0.5)
    assert summary["metrics"]["acc"]["pass@1"] == pytest.approx(0.5)
    assert summary["metrics"]["acc"]["pass@3"] == pytest.approx(0.5)
    assert summary["metrics"]["acc"]["stderr"] == pytest.approx(0.5 / 3)  # sample std sqrt(10/36) / sqrt(10)
    assert summary["num_problems"] == 10 and summary["num_samples"] == 30
    assert results["suite"]["avg"] == pytest.approx(0.5)
    on_disk = json.loads((tmp_path / "results.json").read_text())
    assert on_disk == json.loads(json.dumps(results))
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 30 and sum(s["correct"] for s in samples) == 15
    first = samples[0]
    assert first["benchmark"] == "amc23" and first["sample"] == 0 and first["prompt"] == order[0]
    assert first["extracted"] == first["reference"].removesuffix(".0") or first["extracted"] == first["reference"]
    assert set(first) == {
        "benchmark",
        "id",
        "sample",
        "prompt",
        "completion",
        "extracted",
        "reference",
        "correct",
        "scores",
    }


def test_mixed_samples_give_avg_and_pass_at_k(data_dir, tmp_path):
    aime = get_benchmark("aime24")
    answers = _answers_by_prompt(aime, data_dir, 4)
    correct_counts = dict(zip(answers, [0, 1, 2, 4]))

    def sampler(prompts, n):
        return [
            [f"\\boxed{{{answers[p]}}}"] * correct_counts[p] + ["no idea"] * (n - correct_counts[p]) for p in prompts
        ]

    results = evaluate([aime], sampler, k=4, limit=4, seed=0, output_dir=tmp_path, data_dir=data_dir, progress=False)
    acc = results["benchmarks"]["aime24"]["metrics"]["acc"]
    assert acc["avg@4"] == pytest.approx((0 + 1 + 2 + 4) / 16)
    for j in (1, 2, 4):
        assert acc[f"pass@{j}"] == pytest.approx(sum(pass_at_k(4, c, j) for c in (0, 1, 2, 4)) / 4)


def test_suite_average_timing_and_code_and_ifeval(data_dir, tmp_path):
    humaneval, ifeval, arith = get_benchmark("humaneval"), get_benchmark("ifeval"), get_benchmark("arith_l1")
    solutions = {humaneval.prompt(r): r["canonical_solution"] for r in humaneval.load(data_dir, 3)}
    arithmetic = {arith.prompt(r): r["answer"] for r in arith.load(limit=4)}

    def sampler(prompts, n):
        return [[solutions.get(p) or arithmetic.get(p) or "plain reply without commas"] * n for p in prompts]

    results = evaluate(
        [humaneval, ifeval, arith],
        sampler,
        k=2,
        limit=3,
        seed=0,
        output_dir=tmp_path,
        data_dir=data_dir,
        progress=True,
    )
    assert results["benchmarks"]["humaneval"]["metrics"]["pass"]["avg@2"] == 1.0
    assert results["benchmarks"]["arith_l1"]["metrics"]["acc"]["avg@2"] == 1.0
    ifeval_metrics = results["benchmarks"]["ifeval"]["metrics"]
    assert set(ifeval_metrics) == {
        "prompt_level_strict_acc",
        "inst_level_strict_acc",
        "prompt_level_loose_acc",
        "inst_level_loose_acc",
    }
    primary = [1.0, ifeval_metrics["prompt_level_strict_acc"]["avg@2"], 1.0]
    assert results["suite"]["avg"] == pytest.approx(sum(primary) / 3)
    timing = results["timing"]
    assert timing["grading_s"] > 0 and 0 < timing["grading_share"] <= 1
    assert results["settings"] == {"k": 2, "limit": 3, "seed": 0, "data_dir": str(data_dir)}


def test_sampler_returning_the_wrong_shape_is_an_error(data_dir, tmp_path):
    with pytest.raises(ValueError, match="must return 2 completions"):
        evaluate(
            [get_benchmark("amc23")],
            lambda p, n: [["x"]] * len(p),
            k=2,
            limit=2,
            seed=0,
            output_dir=tmp_path,
            data_dir=data_dir,
            progress=False,
        )


def test_log_to_mlflow(data_dir, tmp_path, monkeypatch):
    mlflow = pytest.importorskip("mlflow")
    amc = get_benchmark("amc23")
    answers = _answers_by_prompt(amc, data_dir, 2)
    out = tmp_path / "eval"
    results = evaluate(
        [amc],
        lambda ps, n: [[f"\\boxed{{{answers[p]}}}"] * n for p in ps],
        k=1,
        limit=2,
        seed=0,
        output_dir=out,
        data_dir=data_dir,
        progress=False,
    )
    tracking = mlflow.tracking._tracking_service.utils
    saved_uri = tracking._tracking_uri
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)  # restored after the test
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    try:
        experiment = mlflow.create_experiment("eval-test", artifact_location=(tmp_path / "artifacts").as_uri())
        with pytest.raises(RuntimeError, match="active MLflow run"):
            log_to_mlflow(results, out)
        with mlflow.start_run(experiment_id=experiment) as run:
            log_to_mlflow(results, out, step=5)
        client = mlflow.MlflowClient()
        metrics = client.get_run(run.info.run_id).data.metrics
        artifacts = sorted(a.path for a in client.list_artifacts(run.info.run_id, "eval"))
    finally:
        mlflow.set_tracking_uri(saved_uri)
    assert metrics["eval/amc23/acc/avg_at_1"] == 1.0 and metrics["eval/suite_avg"] == 1.0
    assert artifacts == ["eval/results.json", "eval/samples.jsonl"]
