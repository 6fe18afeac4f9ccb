"""The countdown profile trains end to end: the warm start learns from demonstrations, and the RL reward
is the Countdown checker's strict verdict on each completion."""

import json

from benchmarks.grading.countdown_check import grade_countdown_batch
from harness.cli import main


def test_the_countdown_profile_trains_with_the_countdown_reward(tmp_path):
    out = tmp_path / "countdown"
    flags = {
        "--run.steps": "2",
        "--rollout.prompts_per_step": "4",
        "--rollout.max_new_tokens": "12",
        "--algo.mini_batches": "2",
        "--warmstart.steps": "2",
        "--warmstart.eval_every": "2",
        "--warmstart.stop_at_accuracy": "null",  # 2 supervised steps cannot reach a target: none is set
        "--task.heldout_size": "4",
        "--run.rollout_samples": "32",
    }
    argv = ["train", "--profile", "countdown", "--output-dir", str(out)]
    argv += ["--tracking-uri", f"sqlite:///{tmp_path / 'mlflow.db'}", *[x for kv in flags.items() for x in kv]]
    assert main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["steps_completed"] == 2
    assert summary["config"]["task"]["source"] == "countdown" and summary["config"]["loss"]["name"] == "grpo"
    samples = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    rows = [row for sample in samples for row in sample.get("samples", [sample]) if "completion" in row]
    assert rows and all(row["answer"].startswith("countdown:") for row in rows)
    verdicts = grade_countdown_batch([r["completion"] for r in rows], [r["answer"] for r in rows], strict=True)
    assert [r["reward"] > 0 for r in rows] == verdicts


def test_the_addsub_scheme_trains_on_its_own_problems(tmp_path):
    out = tmp_path / "addsub"
    flags = {
        "--task.countdown_scheme": "addsub",
        "--run.steps": "1",
        "--rollout.prompts_per_step": "4",
        "--rollout.group_size": "2",
        "--rollout.max_new_tokens": "12",
        "--algo.mini_batches": "1",
        "--warmstart.steps": "1",
        "--warmstart.eval_every": "1",
        "--warmstart.stop_at_accuracy": "null",
        "--task.heldout_size": "2",
        "--run.rollout_samples": "8",
    }
    argv = ["train", "--profile", "countdown", "--output-dir", str(out)]
    argv += ["--tracking-uri", f"sqlite:///{tmp_path / 'mlflow.db'}", *[x for kv in flags.items() for x in kv]]
    assert main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["config"]["task"]["countdown_scheme"] == "addsub"
    samples = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    rows = [row for sample in samples for row in sample.get("samples", [sample]) if "completion" in row]
    numbers = [int(n) for row in rows for n in row["answer"].removeprefix("countdown:").split(">")[0].split()]
    assert rows and 15 < max(numbers) <= 40  # the addsub scheme's numbers, past the full game's 15
