"""A short `train()` with the vLLM backend on N CPU processes (Lightning DDP, gloo).

    python tests/vllm/train_script.py OUT_DIR DEVICES

Lightning re-launches this script once per extra rank; every rank builds its own vLLM engine.
`EngineCheck` writes OUT_DIR/engine_rank{R}.json at the end of training: the rank's engine process,
and whether its engine's greedy output equals greedy HF generate on the rank's trained policy.
"""

import json
import os
import sys
from pathlib import Path

import lightning as L
import psutil


class EngineCheck(L.Callback):
    def __init__(self, out_dir):
        self.out_dir = Path(out_dir)

    def on_train_end(self, trainer, module):
        from harness.rollout.engine import HFGenerateBackend, SamplingParams, chat_prompt

        tokenizer = module.tokenizer
        prompts = [chat_prompt(tokenizer, m) for m in ["12+34=", "7+8=", "99+1=", "40+2="]]
        params = SamplingParams(8, greedy=True)
        engine = module.rollouts.backend.generate(prompts, 1, params)
        hf = HFGenerateBackend(module.policy, tokenizer).generate(prompts, 1, params)
        # Direct children only: rank 1 is itself a child of rank 0 (Lightning starts it).
        engines = [c.pid for c in psutil.Process().children() if "EngineCore" in c.name()]
        check = {
            "rank": trainer.global_rank,
            "backend": type(module.rollouts.backend).__name__,
            "engine_pids": engines,
            "greedy_equal": engine.response_ids.tolist() == hf.response_ids.tolist(),
            "steps": trainer.current_epoch,
        }
        (self.out_dir / f"engine_rank{trainer.global_rank}.json").write_text(json.dumps(check))


def main(out_dir: str, devices: int) -> None:
    from harness.schema import load_train_config
    from harness.training.train import train

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    overrides = {
        "rollout.backend": "vllm",
        "rollout.prompts_per_step": 4,
        "rollout.group_size": 4,
        "algo.mini_batches": 2,
        "warmstart.steps": 0,
        "run.steps": 2,
        "run.threads": 1,
        "run.devices": devices,
        "run.output_dir": str(Path(out_dir) / "run"),
        "run.tracking_uri": f"sqlite:///{out_dir}/mlflow.db",
    }
    train(load_train_config("tiny", None, overrides), callbacks=[EngineCheck(out_dir)])


if __name__ == "__main__":  # vLLM's engine and Lightning's DDP launcher both start processes
    main(sys.argv[1], int(sys.argv[2]))
