"""`harness eval` end to end on CPU (the tiny model; SmolLM2 in test_smol_integration.py), and validation during
training."""

import json

from harness.cli import main


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
