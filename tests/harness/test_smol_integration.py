"""Two RL steps of the `smol` profile on the real SmolLM2-135M-Instruct with a tiny batch."""

import json

from harness.cli import main


def test_two_rl_steps_on_smollm2(tmp_path):
    out = tmp_path / "smol"
    code = main(
        [
            "train",
            "--profile",
            "smol",
            "--output-dir",
            str(out),
            "--tracking-uri",
            f"sqlite:///{tmp_path}/m.db",
            "--run.steps",
            "2",
            "--rollout.prompts_per_step",
            "2",
            "--rollout.group_size",
            "4",
            "--rollout.max_new_tokens",
            "6",
            "--task.heldout_size",
            "4",
            "--run.threads",
            "2",
        ]
    )
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps_completed"] == 2
    for step in summary["history"]:
        assert step["response_length"] > 0 and step["update_tokens"] > 0
        assert step["skipped_updates"] == 0 and step["grad_norm"] >= 0  # 0 when every group is flat
        assert 0 < step["entropy"] < 11  # log(49152) ~ 10.8 nats is the ceiling
    rollouts = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    assert rollouts and all({"completion", "answer", "reward"} <= set(r) for r in rollouts)
