"""The countdown profile trains end to end: the warm start learns from demonstrations, and the RL reward
is the Countdown checker's verdict on each completion; both schemes train on their own problems."""

import json

from benchmarks.grading.countdown_check import grade_countdown_batch
from harness.cli import main

SHORT = {  # a few seconds: 2 supervised steps cannot reach a target, so none is set
    "--rollout.max_new_tokens": "12",
    "--warmstart.eval_every": "1",
    "--warmstart.stop_at_accuracy": "null",
    "--task.heldout_size": "4",
}


def train_countdown(tmp_path, name: str, flags: dict[str, str]) -> tuple[dict, list[dict]]:
    """`harness train --profile countdown` with SHORT and `flags`: (summary.json, the logged rollouts)."""
    out = tmp_path / name
    argv = ["train", "--profile", "countdown", "--output-dir", str(out)]
    argv += ["--tracking-uri", f"sqlite:///{tmp_path / 'mlflow.db'}"]
    argv += [x for kv in {**SHORT, **flags}.items() for x in kv]
    assert main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    samples = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    return summary, [row for sample in samples for row in sample.get("samples", [sample]) if "completion" in row]


def given_numbers(rows: list[dict]) -> list[int]:
    return [int(n) for row in rows for n in row["answer"].removeprefix("countdown:").split(">")[0].split()]


def test_the_countdown_profile_trains_with_the_countdown_reward(tmp_path):
    flags = {"--run.steps": "2", "--rollout.prompts_per_step": "4", "--algo.mini_batches": "2"}
    flags |= {"--warmstart.steps": "2", "--run.rollout_samples": "32"}
    summary, rows = train_countdown(tmp_path, "countdown", flags)
    assert summary["status"] == "completed" and summary["steps_completed"] == 2
    assert summary["config"]["task"]["source"] == "countdown" and summary["config"]["loss"]["name"] == "grpo"
    assert summary["config"]["task"]["countdown_scheme"] == "addsub"  # the profile's scheme (run log r16)
    assert rows and all(row["answer"].startswith("countdown:") for row in rows)
    # the profile's reward is lenient: the expression reaches the target with the given numbers
    verdicts = grade_countdown_batch([r["completion"] for r in rows], [r["answer"] for r in rows], strict=False)
    assert [r["reward"] > 0 for r in rows] == verdicts
    assert 15 < max(given_numbers(rows)) <= 40  # addsub's numbers, past the full game's 15
    # the online reward check reads Countdown answers with Countdown's detectors, not the maths ones
    suspects_file = tmp_path / "countdown" / "reward_suspects.jsonl"
    suspects = suspects_file.read_text().splitlines() if suspects_file.exists() else []
    assert all(json.loads(line)["reasons"] == ["unpaid_steps"] for line in suspects)


def test_the_full_game_still_trains_on_its_own_problems(tmp_path):
    flags = {"--task.countdown_scheme": "full", "--run.steps": "1", "--rollout.prompts_per_step": "4"}
    flags |= {"--rollout.group_size": "2", "--algo.mini_batches": "1", "--warmstart.steps": "1"}
    flags |= {"--run.rollout_samples": "8"}
    summary, rows = train_countdown(tmp_path, "full", flags)
    assert summary["status"] == "completed" and summary["config"]["task"]["countdown_scheme"] == "full"
    assert rows and max(given_numbers(rows)) <= 15
