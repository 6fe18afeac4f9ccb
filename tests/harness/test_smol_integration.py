"""The real SmolLM2-135M-Instruct: loaded from the wheel, two RL steps of the `smol` profile with a tiny
batch, and `harness eval` on the math suite. All live in this file so that one test worker de-quantises
the model once."""

import json

import torch

from harness.cli import main
from harness.rollout.engine import chat_prompt


def test_smollm2_from_the_wheel(check_model, tmp_path):
    model, tokenizer = check_model("smollm2-135m-instruct", "What is 2 + 3? Answer with just the number.", tmp_path)
    assert "<|im_start|>assistant" in chat_prompt(tokenizer, "hi")
    # the cached folder holds plain float32 weights, not a GGUF quantisation
    assert getattr(model.config, "quantization_config", None) is None
    assert all(p.dtype == torch.float32 for p in model.parameters())


# SmolLM2 generates ~60 tokens/s here: 2 problems per benchmark keep it to a real model's smoke test
def test_eval_math_suite_on_smollm2(eval_math_suite, tmp_path, mlflow_server):
    eval_math_suite("smollm2-135m-instruct", "24", 2, tmp_path, mlflow_server)


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
            "2",  # the held-out checks (greedy and sampled, before and after) were a third of the time
            "--algo.mini_batches",
            "1",
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
