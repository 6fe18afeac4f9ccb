"""`harness eval` end to end on CPU (the tiny model; SmolLM2 in test_smol_integration.py), and validation during
training."""

import json
from pathlib import Path

from harness.cli import main
from harness.common.environment import environment_from_tags


def test_eval_math_suite_writes_results_and_tracks_them(eval_math_suite, tmp_path, mlflow_server):
    eval_math_suite("tiny", "48", 5, tmp_path, mlflow_server)  # SmolLM2: tests/harness/test_smol_integration.py


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


def test_eval_fresh_suite_offline_shows_majority_and_records_the_environment(tmp_path, capsys):
    """`harness eval --suite fresh` from files in the documented format (the synthetic fixtures), with
    maj@k / pass^k in the printed table and the numerical environment in results.json and the MLflow tags."""
    import mlflow
    import torch

    fixtures = Path(__file__).resolve().parents[1] / "benchmarks" / "fixtures"
    out, store = tmp_path / "eval", f"sqlite:///{tmp_path}/m.db"
    arguments = ["eval", "--model", "tiny", "--suite", "fresh", "--data-dir", str(fixtures), "--limit", "2"]
    arguments += ["--k", "2", "--max-new-tokens", "8", "--output-dir", str(out), "--tracking-uri", store]
    arguments += ["--tags", "{env.dtype: float64}"]  # a user tag cannot overwrite what the run ran on
    assert main(arguments) == 0
    printed = capsys.readouterr().out
    header = next(line for line in printed.splitlines() if line.startswith("benchmark"))
    assert "maj@2 (%)" in header and "pass^2 (%)" in header
    assert "environment: cpu " in printed and ", float32, hf " in printed
    results = json.loads((out / "results.json").read_text())
    assert list(results["benchmarks"]) == ["aime26", "hmmt_feb26", "hmmt_nov25", "brumo25", "cmimc25"]
    for bench in results["benchmarks"].values():
        assert bench["num_problems"] == 2 and {"maj@2", "pass^2", "pass@2"} <= set(bench["metrics"]["acc"])
    environment = results["environment"]
    assert environment["device"] == "cpu" and environment["dtype"] == "float32" and environment["backend"] == "hf"
    assert environment["torch"] == torch.__version__ and environment["batch_size"] == "64"
    client = mlflow.MlflowClient(store)
    (run,) = client.search_runs([client.get_experiment_by_name("ce-gppo-eval").experiment_id])
    assert environment_from_tags(run.data.tags) == environment
    assert "eval/aime26/acc/maj_at_2" in run.data.metrics and "eval/cmimc25/acc/pass_hat_2" in run.data.metrics


def test_a_bad_benchmark_file_is_refused_before_the_model_loads(tmp_path, capsys, monkeypatch):
    """A duplicated id used to be found after the model had loaded (seconds of CPU for SmolLM2)."""
    import harness.evaluate as evaluate_module

    rows = [{"id": "a", "problem": "1+1", "answer": "2"}, {"id": "a", "problem": "2+2", "answer": "4"}]
    (tmp_path / "amc23.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setattr(evaluate_module, "load_model", lambda *a, **k: (_ for _ in ()).throw(AssertionError("loaded")))
    arguments = ["eval", "--model", "tiny", "--suite", "amc23", "--data-dir", str(tmp_path)]
    assert main([*arguments, "--output-dir", str(tmp_path / "out"), "--tracking-uri", "none"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the same id 'a'" in err
