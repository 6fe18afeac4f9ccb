"""The runner with fake samplers: results.json / samples.jsonl (maj@k, pass^k, the environment), MLflow logging."""

import dataclasses
import json
from pathlib import Path

import pytest

from benchmarks import evaluate, get_benchmark, log_to_mlflow
from benchmarks.benchmark import Metric
from benchmarks.eval_logging import mlflow_metrics
from benchmarks.eval_metrics import pass_at_k
from benchmarks.sample_scores import problem_majority, problem_pass_hat


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
    assert all(s["correct_strict"] == s["correct"] for s in samples)  # plain integers: both modes agree
    assert summary["metrics"]["acc_strict"]["avg@3"] == pytest.approx(0.5)
    assert results["suite"]["avg_strict"] == pytest.approx(0.5)
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
        "extraction_rule",
        "graded_text",
        "reference",
        "correct",
        "correct_strict",
        "answer_class",
        "scores",
    }
    assert [s["answer_class"] for s in samples[:6]] == [0, 0, 0, 0, 0, 0]  # one answer per problem, 3 times


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


FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_majority_vote_and_pass_hat_k_worked_by_hand(tmp_path):
    """aime26's fixture (answers 24, 24, 391), k = 4:
    problem 1: 24, 25, 25, no answer -> the wrong 25 outvotes 24 (2 to 1): maj 0; pass^4 0, pass^2 0
    problem 2: 24, 24, 24, 7         -> maj 1; pass^4 0, pass^2 C(3,2)/C(4,2) = 1/2
    problem 3: 391 four times        -> maj 1; pass^4 1, pass^2 1
    so maj@4 = 2/3, pass^4 = 1/3, pass^2 = (0 + 1/2 + 1)/3 = 1/2, pass^1 = avg@4 = (1/4 + 3/4 + 1)/3 = 2/3."""
    aime26 = get_benchmark("aime26")
    rows = aime26.load(FIXTURES)
    completions = {
        rows[0]["id"]: ["\\boxed{24}", "\\boxed{25}", "so \\boxed{25}", "no idea"],
        rows[1]["id"]: ["\\boxed{24}", "\\boxed{024}", "The answer is 24.", "\\boxed{7}"],
        rows[2]["id"]: ["\\boxed{391}"] * 4,
    }
    by_prompt = {aime26.prompt(row): completions[row["id"]] for row in rows}

    def sampler(prompts, n):
        return [by_prompt[p] for p in prompts]

    def run(**options) -> dict:
        return evaluate([aime26], sampler, k=4, limit=None, seed=0, output_dir=tmp_path, data_dir=FIXTURES, **options)

    environment = {"device": "cpu", "dtype": "float32"}
    results = run(progress=False, environment=environment)
    acc = results["benchmarks"]["aime26"]["metrics"]["acc"]
    assert acc["maj@4"] == pytest.approx(2 / 3) and acc["pass^4"] == pytest.approx(1 / 3)
    assert acc["pass^2"] == pytest.approx(1 / 2) and acc["pass^1"] == pytest.approx(2 / 3) == acc["avg@4"]
    assert acc["pass@4"] == 1.0 and "maj@4" not in results["benchmarks"]["aime26"]["metrics"]["acc_strict"]
    assert results["environment"] == environment
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    assert [s["answer_class"] for s in samples] == [0, 1, 1, None, 0, 0, 0, 1, 0, 0, 0, 0]
    # samples-derived: the records alone give back results.json's figures, problem by problem
    majority, all_right = problem_majority(samples)["aime26"], problem_pass_hat(samples)["aime26"]
    assert majority == {rows[0]["id"]: 0.0, rows[1]["id"]: 1.0, rows[2]["id"]: 1.0}
    assert all_right == {rows[0]["id"]: 0.0, rows[1]["id"]: 0.0, rows[2]["id"]: 1.0}
    assert sum(problem_pass_hat(samples, 2)["aime26"].values()) / 3 == pytest.approx(acc["pass^2"])
    flat = mlflow_metrics(results)
    assert flat["eval/aime26/acc/maj_at_4"] == pytest.approx(2 / 3)
    assert flat["eval/aime26/acc/pass_hat_4"] == pytest.approx(1 / 3)
    assert not any("environment" in name for name in flat)  # the environment is tags, not metrics

    # A skipped problem abstains: problem 3 (the only one solved by every sample) does not fit.
    results = run(progress=False, prompt_fits=lambda prompt: "17 \\cdot 23" not in prompt)
    acc = results["benchmarks"]["aime26"]["metrics"]["acc"]
    assert acc["maj@4"] == pytest.approx(1 / 3) and acc["pass^4"] == 0.0 and "environment" not in results


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


def _amc_sampler(data_dir, limit):
    answers = _answers_by_prompt(get_benchmark("amc23"), data_dir, limit)
    return lambda prompts, n: [[f"\\boxed{{{answers.get(p, -1)}}}"] * n for p in prompts]


def test_a_failed_evaluation_leaves_the_previous_files_untouched(data_dir, tmp_path):
    amc, aime = get_benchmark("amc23"), get_benchmark("aime24")
    settings = dict(k=2, limit=2, seed=0, output_dir=tmp_path, data_dir=data_dir, progress=False)
    evaluate([amc, aime], _amc_sampler(data_dir, 2), **settings)
    before = {name: (tmp_path / name).read_bytes() for name in ("results.json", "samples.jsonl")}
    assert before["samples.jsonl"] and before["results.json"]
    aime_prompts = {aime.prompt(row) for row in aime.load(data_dir, 2)}

    def fails_on_the_second_benchmark(prompts, n):
        if set(prompts) & aime_prompts:
            raise RuntimeError("CUDA out of memory")
        return [["\\boxed{0}"] * n for _ in prompts]

    with pytest.raises(RuntimeError, match="CUDA out of memory"):
        evaluate([amc, aime], fails_on_the_second_benchmark, **settings)
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "samples.jsonl"]  # no temporaries left


def test_output_directory_that_is_a_file_fails_before_sampling(tmp_path):
    (tmp_path / "out").write_text("not a folder")
    with pytest.raises(ValueError, match="output directory .*out is a file, not a folder"):
        evaluate([get_benchmark("arith_l1")], None, k=1, limit=1, seed=0, output_dir=tmp_path / "out")


def test_a_bad_data_file_fails_before_any_sampling(data_dir, tmp_path):
    (tmp_path / "aime24.jsonl").write_text('{"id": "a", "problem": "p", "answer": null}\n')
    (tmp_path / "amc23.jsonl").write_text((data_dir / "amc23.jsonl").read_text())
    calls = []
    with pytest.raises(ValueError, match=r"aime24.jsonl:1: null value in field\(s\) answer"):
        evaluate(
            [get_benchmark("amc23"), get_benchmark("aime24")],
            lambda prompts, n: calls.append(prompts) or [["x"] * n for _ in prompts],
            k=1,
            limit=2,
            seed=0,
            output_dir=tmp_path / "out",
            data_dir=tmp_path,
            progress=False,
        )
    assert calls == []


def test_prompts_that_do_not_fit_are_skipped_scored_zero_and_counted(data_dir, tmp_path):
    amc = get_benchmark("amc23")
    rows = amc.load(data_dir, 4)
    too_long = amc.prompt(rows[1])
    sampled = []
    answer = _amc_sampler(data_dir, 4)

    def sampler(prompts, n):
        sampled.extend(prompts)
        return answer(prompts, n)

    results = evaluate(
        [amc],
        sampler,
        k=2,
        limit=4,
        seed=0,
        output_dir=tmp_path,
        data_dir=data_dir,
        progress=False,
        prompt_fits=lambda prompt: prompt != too_long,
    )
    assert too_long not in sampled and len(sampled) == 3
    summary = results["benchmarks"]["amc23"]
    assert summary["num_skipped"] == 1 and summary["num_problems"] == 4 and summary["num_samples"] == 8
    assert summary["metrics"]["acc"]["avg@2"] == pytest.approx(0.75)
    assert summary["metrics"]["acc"]["pass@2"] == pytest.approx(0.75)
    assert summary["metrics"]["acc"]["maj@2"] == summary["metrics"]["acc"]["pass^2"] == pytest.approx(0.75)
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    skipped = [s for s in samples if "skipped" in s]
    assert [s["sample"] for s in skipped] == [0, 1] and all(s["prompt"] == too_long for s in skipped)
    assert skipped[0] | {"sample": 0} == {
        "benchmark": "amc23",
        "id": rows[1]["id"],
        "sample": 0,
        "prompt": too_long,
        "completion": None,
        "extracted": None,
        "reference": str(rows[1]["answer"]),
        "correct": False,
        "correct_strict": False,
        "scores": {"acc": 0.0, "acc_strict": 0.0},
        "answer_class": None,
        "skipped": "prompt longer than the model's context",
    }
    assert sum(s["correct"] for s in samples) == 6


def test_a_benchmark_whose_every_row_is_skipped(data_dir, tmp_path):
    def sampler(prompts, n):
        assert not set(prompts) & skipped_prompts, "a skipped prompt reached the sampler"
        return [["\\boxed{2}"] * n for _ in prompts]

    humaneval, ifeval, arith = get_benchmark("humaneval"), get_benchmark("ifeval"), get_benchmark("arith_l1")
    skipped_prompts = {b.prompt(r) for b in (humaneval, ifeval) for r in b.load(data_dir, 2)}
    results = evaluate(
        [humaneval, ifeval, arith],
        sampler,
        k=3,
        limit=2,
        seed=0,
        output_dir=tmp_path,
        data_dir=data_dir,
        progress=True,
        prompt_fits=lambda prompt: prompt not in skipped_prompts,
    )
    for name in ("humaneval", "ifeval"):
        summary = results["benchmarks"][name]
        assert summary["num_skipped"] == summary["num_problems"] == 2
        primary = summary["metrics"][summary["primary_metric"]]
        assert primary["avg@3"] == 0.0 and primary["stderr"] == 0.0 and primary["pass@3"] == 0.0
    assert results["benchmarks"]["ifeval"]["metrics"]["inst_level_loose_acc"]["avg@3"] == 0.0
    assert results["benchmarks"]["arith_l1"]["num_skipped"] == 0
    lines = (tmp_path / "samples.jsonl").read_text().splitlines()
    assert len(lines) == 3 * 2 * 3 and sum("skipped" in json.loads(line) for line in lines) == 12


def test_limit_below_one_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="limit must be >= 1"):
        evaluate([get_benchmark("arith_l1")], None, k=1, limit=0, seed=0, output_dir=tmp_path)


def test_progress_label_says_sampling_while_sampling_and_grading_only_while_grading(tmp_path, monkeypatch):
    import benchmarks.runner as runner

    bars = []

    class RecordedProgress(runner.Progress):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            bars.append(self)

    def labels() -> list[str]:
        return [task.description for task in bars[0].tasks]

    seen = []

    def grade(row, completion):
        seen.append(("grading", labels()))
        return float(completion == row["answer"]), completion

    def sampler(prompts, n):
        seen.append(("sampling", labels()))
        return [[p] * n for p in prompts]

    monkeypatch.setattr(runner, "Progress", RecordedProgress)
    arith = dataclasses.replace(get_benchmark("arith_l1"), grade=grade, metrics=(Metric("acc"),))  # one verdict
    second = dataclasses.replace(arith, name="second")
    evaluate([arith, second], sampler, k=2, limit=2, seed=0, output_dir=tmp_path, chunk_size=1)
    assert seen[0] == ("sampling", ["arith_l1: sampling"])
    assert {(phase, tuple(label)) for phase, label in seen} == {
        ("sampling", ("arith_l1: sampling",)),
        ("grading", ("arith_l1: grading",)),
        ("sampling", ("arith_l1: done", "second: sampling")),
        ("grading", ("arith_l1: done", "second: grading")),
    }
    assert labels() == ["arith_l1: done", "second: done"]


def test_too_many_samples_for_one_benchmark_are_refused_before_sampling(data_dir, tmp_path, monkeypatch):
    from benchmarks import runner
    from harness.common.errors import ConfigError

    monkeypatch.setattr(runner, "MAX_SAMPLES", 10)
    calls = []
    with pytest.raises(ConfigError, match=r"k=4 x 3 problems of amc23 = 12 samples, more than the 10 .*--limit"):
        evaluate(
            [get_benchmark("amc23")],
            lambda prompts, n: calls.append(prompts) or [["x"] * n for _ in prompts],
            k=4,
            limit=3,
            seed=0,
            output_dir=tmp_path,
            data_dir=data_dir,
            progress=False,
        )
    assert calls == []


class Usage:
    def __init__(self, free):
        self.total, self.used, self.free = 10**9, 10**9 - free, free


def test_a_disk_too_full_for_the_samples_is_refused_before_generation(data_dir, tmp_path, monkeypatch):
    """16 KB free (the reliability case): refused before any sampling, previous files untouched."""
    import errno

    from benchmarks import runner

    settings = dict(k=2, limit=2, seed=0, output_dir=tmp_path, data_dir=data_dir, progress=False)
    evaluate([get_benchmark("amc23")], _amc_sampler(data_dir, 2), **settings)
    before = {name: (tmp_path / name).read_bytes() for name in ("results.json", "samples.jsonl")}
    monkeypatch.setattr(runner.shutil, "disk_usage", lambda path: Usage(16_000))
    calls = []
    with pytest.raises(OSError) as error:
        evaluate(
            [get_benchmark("amc23")],
            lambda prompts, n: calls.append(prompts) or [["x"] * n for _ in prompts],
            **{**settings, "k": 50},
        )
    assert error.value.errno == errno.ENOSPC and error.value.filename == str(tmp_path / "samples.jsonl")
    assert "nothing was generated" in error.value.strerror and calls == []
    assert {name: (tmp_path / name).read_bytes() for name in before} == before


@pytest.mark.parametrize("failing", ["write", "fsync", "results"])
def test_a_disk_that_fills_up_while_writing_names_the_file_and_keeps_the_old_files(
    failing, data_dir, tmp_path, monkeypatch
):
    """ENOSPC raised without a file name (as write and fsync raise it) comes out naming the file."""
    import contextlib
    import errno
    import os

    from benchmarks import runner

    settings = dict(k=2, limit=2, seed=0, output_dir=tmp_path, data_dir=data_dir, progress=False)
    evaluate([get_benchmark("amc23")], _amc_sampler(data_dir, 2), **settings)
    before = {name: (tmp_path / name).read_bytes() for name in ("results.json", "samples.jsonl")}

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    real_file = runner.atomic_file

    def samples_file_that_fills(path, *args, **kwargs):
        with real_file(path, *args, **kwargs) as sink:
            sink.write = full
            yield sink

    if failing == "write":
        monkeypatch.setattr(runner, "atomic_file", contextlib.contextmanager(samples_file_that_fills))
    elif failing == "fsync":
        monkeypatch.setattr(os, "fsync", full)  # the last step of atomic_file: the samples file is the one left
    else:
        monkeypatch.setattr(runner, "atomic_write_text", full)
    with pytest.raises(OSError) as error:
        evaluate([get_benchmark("amc23")], _amc_sampler(data_dir, 2), **settings)
    name = "results.json" if failing == "results" else "samples.jsonl"
    assert error.value.errno == errno.ENOSPC and error.value.filename == str(tmp_path / name)
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "samples.jsonl"]  # no temporaries left


def test_the_strict_verdict_is_recorded_beside_the_lenient_one(tmp_path):
    from benchmarks.results_table import format_results

    arith = get_benchmark("arith_l1")
    answers = _answers_by_prompt(arith, None, 4)

    def sampler(prompts, n):  # the right value with the division left undone: lenient credits, strict refuses
        return [[f"So \\boxed{{\\frac{{{2 * int(answers[p])}}}{{2}}}}."] * n for p in prompts]

    results = evaluate([arith], sampler, k=2, limit=4, seed=0, output_dir=tmp_path, progress=False)
    metrics = results["benchmarks"]["arith_l1"]["metrics"]
    assert metrics["acc"]["avg@2"] == 1.0 and metrics["acc_strict"]["avg@2"] == 0.0
    assert results["suite"]["avg"] == 1.0 and results["suite"]["avg_strict"] == 0.0
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    assert {(s["correct"], s["correct_strict"]) for s in samples} == {(True, False)}
    table = format_results(results).splitlines()
    assert "avg@2 ± se (%)  strict avg@2 (%)" in table[0]
    assert table[2].split()[:4] == ["arith_l1", "acc", "100.0", "±"] and table[2].split()[5] == "0.0"
    assert table[-1].split()[:6] == ["suite", "mean", "1", "benchmark", "100.0", "0.0"]
