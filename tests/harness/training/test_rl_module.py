"""The RL step (harness.training.rl_module): non-finite losses, and log-probs / entropy of the sampled distribution."""

import json

import lightning as L
import pytest
import torch

from algorithms.ce_gppo import CEGPPOLoss
from harness.models import load_model
from harness.rollout.engine import Rollouts, response_mask_from_ids
from harness.schema import load_train_config
from harness.tasks import build_task
from harness.training.logprobs import response_logprobs
from harness.training.rl_module import RLModule
from harness.training.rollout_source import SyncSource
from harness.training.train import TrainingStopped, train
from harness.training.update_batch import UpdateBatch

SMALL = {"rollout.prompts_per_step": 8, "algo.mini_batches": 2}


def tiny_config(tmp_path, name: str, **overrides):
    return load_train_config(
        "tiny",
        None,
        {
            "run.output_dir": str(tmp_path / name),
            "run.tracking_uri": f"sqlite:///{tmp_path}/m.db",
            **SMALL,
            **overrides,
        },
    )


def test_nan_loss_is_skipped_then_stops(tmp_path, monkeypatch):
    # The same run unpoisoned for one step: the weights every skipped update must leave alone.
    train(tiny_config(tmp_path, "clean", **{"run.steps": 1}))
    clean, _ = load_model(str(tmp_path / "clean" / "model"))

    original = CEGPPOLoss.__call__
    calls = [0]

    def poisoned(self, batch):
        out = original(self, batch)
        calls[0] += 1
        if calls[0] > 2:  # step 0 is 2 mini-batches of one micro-batch: poison every later step
            out.per_token.data.fill_(float("nan"))
        return out

    monkeypatch.setattr(CEGPPOLoss, "__call__", poisoned)
    out = tmp_path / "r"
    with pytest.raises(TrainingStopped, match="3 consecutive steps"):
        train(tiny_config(tmp_path, "r", **{"run.steps": 8, "run.max_bad_steps": 3}))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "stopped" and "non-finite" in summary["stop_reason"]
    assert [h["skipped_updates"] for h in summary["history"]] == [0, 2, 2, 2]
    assert summary["stability"]["skipped_updates"] == 6
    # skipped updates leave the weights untouched: the saved model equals the step-0 weights
    final, _ = load_model(str(out / "model"))
    clean_state = clean.state_dict()
    for name, value in final.state_dict().items():
        assert torch.equal(value, clean_state[name]), name


class RecordingSource(SyncSource):
    """Keeps the rollouts of each step so that a test can recompute what the step logged."""

    def collect(self, position):
        sampled = super().collect(position)
        self.seen = sampled.rollouts
        return sampled


def test_logged_entropy_is_that_of_the_tempered_distribution(tmp_path):
    temperature = 0.7
    config = tiny_config(
        tmp_path,
        "t",
        **{"run.steps": 1, "rollout.temperature": temperature, "algo.mini_batches": 1, "warmstart.steps": 0},
    )
    policy, tokenizer = load_model("tiny")
    task = build_task(config.task)
    module = RLModule(config, policy, tokenizer, task, rollouts=RecordingSource(config, policy, tokenizer, task))
    start = {k: v.clone() for k, v in policy.state_dict().items()}
    L.Trainer(
        max_epochs=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        accelerator="cpu",
    ).fit(module)
    policy.load_state_dict(start)  # the policy the step's single forward pass saw
    batch = module.rollouts.seen
    with torch.no_grad():
        logits = policy(
            input_ids=batch.input_ids,
            attention_mask=batch.attention_mask,
            position_ids=(batch.attention_mask.cumsum(1) - 1).clamp(min=0),
        ).logits
    P = batch.prompt_ids.shape[1]
    logp = torch.log_softmax(logits[:, P - 1 : -1].float() / temperature, -1)  # [N, T, V]
    entropy = -(logp.exp() * logp).sum(-1)  # [N, T]
    mask = batch.response_mask.float()
    expected = float((entropy * mask).sum() / mask.sum())
    at_one = torch.log_softmax(logits[:, P - 1 : -1].float(), -1)
    untempered = float(((-(at_one.exp() * at_one).sum(-1)) * mask).sum() / mask.sum())
    logged = module.history[0]
    assert logged["entropy"] == pytest.approx(expected, rel=1e-5)
    assert abs(untempered - expected) > 0.05  # the check can tell the two apart
    assert logged["ratio_max"] == 1.0 and logged["ppo_kl"] == 0.0  # one on-policy mini-batch


def test_behaviour_logprobs_equal_the_sampler_at_its_temperature():
    """log-probs the trainer uses for the sampled tokens = those of generate's tempered distribution."""
    temperature = 0.7
    policy, tokenizer = load_model("tiny")
    config = load_train_config("tiny", None, {"rollout.temperature": temperature, "rollout.top_p": 1.0})
    module = RLModule(config, policy, tokenizer, build_task(config.task))
    prompts = [
        tokenizer.apply_chat_template([{"role": "user", "content": m}], add_generation_prompt=True, tokenize=False)
        for m in ("12+34=", "5+67=")
    ]
    enc = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
    torch.manual_seed(0)
    out = policy.generate(
        **enc,
        do_sample=True,
        temperature=temperature,
        top_k=0,
        top_p=1.0,
        max_new_tokens=4,
        output_scores=True,
        return_dict_in_generate=True,
        pad_token_id=tokenizer.pad_token_id,
    )
    response = out.sequences[:, enc.input_ids.shape[1] :]  # [N, T]
    mask, _ = response_mask_from_ids(response, {tokenizer.eos_token_id})
    scores = torch.stack(out.scores, 1).float()  # [N, T, V] after the temperature warper
    sampler_logp = torch.log_softmax(scores, -1).gather(-1, response.unsqueeze(-1)).squeeze(-1)  # [N, T]
    rollouts = Rollouts(
        enc.input_ids, enc.attention_mask, response, mask, ~mask.bool().all(1), ["", ""], torch.arange(2)
    )
    batch = UpdateBatch.from_rollouts(rollouts, torch.zeros(2))
    ours = module.policy_update.score(policy, batch)  # [N, T]
    keep = mask.bool()
    torch.testing.assert_close(ours[keep], sampler_logp[keep], atol=1e-5, rtol=0)
    at_one, _ = response_logprobs(policy, batch.input_ids, batch.attention_mask, batch.prompt_length)
    assert (at_one[keep] - sampler_logp[keep]).abs().max() > 1e-2  # untempered log-probs would differ
