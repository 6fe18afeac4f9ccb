"""Supervised warm start: the tiny profile's starting policy, built once and cached.

The tiny profile's model starts from random weights; a short supervised phase on the task's
training split gives it a real but imperfect success rate and non-trivial entropy, which is
where RL losses can differ. The result is cached (keyed by model, task and warm-start config),
so paired RL runs with different seeds share the exact same starting policy.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

import torch

from harness.common.files import atomic_directory, remove_stale_temporaries
from harness.rollout.engine import chat_prompt
from harness.schema import TrainConfig
from harness.tasks import Problem
from harness.training.heldout import heldout_accuracy


def supervised_batch(tokenizer, problems: list[Problem]) -> dict[str, torch.Tensor]:
    """Prompt + answer (its demonstration where it has one) + EOS, right-padded; labels only on the answer and
    EOS tokens."""
    rows, labels = [], []
    for problem in problems:
        prompt = tokenizer(chat_prompt(tokenizer, problem.prompt), add_special_tokens=False).input_ids
        shown = problem.demonstration or problem.answer  # a worked solution where the task has one
        answer = tokenizer(shown, add_special_tokens=False).input_ids + [tokenizer.eos_token_id]
        rows.append(prompt + answer)
        labels.append([-100] * len(prompt) + answer)
    width = max(len(r) for r in rows)
    pad = tokenizer.pad_token_id
    input_ids = torch.tensor([r + [pad] * (width - len(r)) for r in rows])  # [B, L]
    attention = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])  # [B, L]
    targets = torch.tensor([lab + [-100] * (width - len(lab)) for lab in labels])  # [B, L]
    return {"input_ids": input_ids, "attention_mask": attention, "labels": targets}


def warm_start_key(config: TrainConfig) -> str:
    payload = {"model": config.model.name, "task": asdict(config.task), "warmstart": asdict(config.warmstart)}
    return hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]


def warm_start(model, tokenizer, task, config: TrainConfig, log=print) -> dict:
    """Train `model` in place on (prompt, answer) pairs; returns the accuracy history."""
    ws = config.warmstart
    heldout = task.heldout()
    max_new = config.rollout.max_new_tokens
    torch.manual_seed(ws.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=ws.lr)
    history = []
    model.train()
    for step in range(1, ws.steps + 1):
        draw = getattr(task, "warmstart_batch", task.train_batch)  # a task may show only some solutions
        batch = supervised_batch(tokenizer, draw(step, ws.batch_size, seed=ws.seed + 99_991))
        loss = model(**batch).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % ws.eval_every == 0 or step == ws.steps:
            accuracy = heldout_accuracy(model, tokenizer, heldout, max_new, greedy=True)
            history.append({"step": step, "loss": loss.item(), "greedy_accuracy": accuracy})
            log(f"warm start step {step}: loss {loss.item():.3f}, greedy held-out accuracy {accuracy:.3f}")
            if ws.stop_at_accuracy is not None and accuracy >= ws.stop_at_accuracy:
                break
    model.eval()
    return {"key": warm_start_key(config), "history": history}


def load_or_warm_start(model_loader, task, config: TrainConfig, cache: Path, log=print):
    """(model, tokenizer, info) after the warm start, from the cache when it was done before."""
    folder = cache / "warmstart" / warm_start_key(config)
    remove_stale_temporaries(folder.parent)  # what a warm start killed mid-save left behind
    if (folder / "warmstart.json").is_file():
        model, tokenizer = model_loader(str(folder))
        return model, tokenizer, json.loads((folder / "warmstart.json").read_text())
    model, tokenizer = model_loader(config.model.name)
    info = warm_start(model, tokenizer, task, config, log)
    # replace=False: when another process finished the same warm start first, its copy stays.
    with atomic_directory(folder, replace=False) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / "warmstart.json").write_text(json.dumps(info, indent=2))
    return model, tokenizer, info
