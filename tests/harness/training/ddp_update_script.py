"""Run one RL step on a fixed global rollout batch with N processes; save the updated weights.

    python tests/harness/training/ddp_update_script.py OUT_FILE DEVICES AGG_MODE

Used by test_ddp.py: Lightning's DDP strategy (gloo on CPU) re-launches this script once per
extra rank. Every rank receives its share (prompts rank::world) of the same global batch, in
which half of the completions are the right answer and half a wrong one, so advantages are
non-zero (FixedRollouts); two PPO epochs make the second update off-policy. SGD stands in for
AdamW (see SGDModule.configure_optimizers).
"""

import sys
from pathlib import Path

import torch

from harness.models import load_model
from harness.rollout.engine import Rollouts, chat_prompt, response_mask_from_ids
from harness.schema import load_train_config
from harness.tasks import build_task
from harness.training.rl_module import RLModule
from harness.training.rollout_source import SyncSource
from harness.training.step_batch import StepRollouts
from harness.training.train import make_trainer


class SGDModule(RLModule):
    def configure_optimizers(self):
        # Plain SGD: Adam's first step is lr * sign(g), which turns float round-off in
        # near-zero gradients into lr-sized differences and would hide what is compared here.
        return torch.optim.SGD(self.policy.parameters(), lr=self.config.optim.lr)


class FixedRollouts(SyncSource):
    def collect(self, step):
        rank, world = self.ranks.rank, self.ranks.world
        problems = self.task.train_batch(step, self.config.rollout.prompts_per_step, 0)[rank::world]
        G = self.config.rollout.group_size
        tok = self.tokenizer
        prompts, responses, answers = [], [], []
        for p in problems:
            for g in range(G):
                text = p.answer if g % 2 == 0 else str(int(p.answer) + g)
                prompts.append(chat_prompt(tok, p.prompt))
                responses.append(tok(text, add_special_tokens=False).input_ids + [tok.eos_token_id])
                answers.append(p.answer)
        enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        width = max(map(len, responses))
        ids = torch.tensor([r + [tok.pad_token_id] * (width - len(r)) for r in responses])  # [N, T]
        mask, truncated = response_mask_from_ids(ids, {tok.eos_token_id})
        texts = tok.batch_decode(ids, skip_special_tokens=True)
        index = torch.arange(len(problems)).repeat_interleave(G)
        rollouts = Rollouts(enc.input_ids, enc.attention_mask, ids, mask, truncated, texts, index)
        return StepRollouts(rollouts, answers, [problems[i].prompt for i in index.tolist()])


def main(out_file: str, devices: int, agg_mode: str) -> None:
    torch.set_num_threads(1)
    config = load_train_config(
        "tiny",
        None,
        {
            "run.devices": devices,
            "run.steps": 1,
            "run.output_dir": out_file + ".run",
            "warmstart.steps": 0,
            "rollout.prompts_per_step": 8,
            "rollout.group_size": 4,
            "algo.mini_batches": 1,
            "algo.ppo_epochs": 2,
            "algo.micro_batch_size": 5,
            "algo.agg_mode": agg_mode,
            "optim.lr": 0.5,
        },
    )
    task = build_task(config.task)
    policy, tokenizer = load_model("tiny")
    module = SGDModule(config, policy, tokenizer, task, rollouts=FixedRollouts(config, policy, tokenizer, task))
    trainer = make_trainer(config, Path(out_file + ".run"), logger=False)
    trainer.fit(module)
    if trainer.is_global_zero:
        torch.save({k: v.clone() for k, v in module.policy.state_dict().items()}, out_file)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
