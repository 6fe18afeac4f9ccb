"""Supervised warm start: the tiny profile's starting policy, built once and cached.

The tiny profile's model starts from random weights; a short supervised phase on the task's
training split gives it a real but imperfect success rate and non-trivial entropy, which is
where RL losses can differ. The result is cached (keyed by model, task and warm-start config),
so paired RL runs with different seeds share the exact same starting policy.

The schedule (docs/warm-start.md): linear warm-up, then constant or cosine-decayed learning rate,
gradient clipping, torch threads pinned while it runs; the held-out greedy accuracy is checked every
`eval_every` steps and the warm start stops at the first check that reaches `stop_at_accuracy`.
Reaching `steps` below the target raises `WarmStartError` (one line, exit 2): no policy below its
target is handed on or cached.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

import torch

from harness.common.errors import UserError
from harness.common.files import atomic_directory, remove_stale_temporaries
from harness.config_fields import without_added_defaults
from harness.rollout.engine import chat_prompt
from harness.schema import TaskConfig, TrainConfig, WarmStartConfig
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
    """The cache key of the starting policy: model, task and warm-start config. Task keys added later
    (`since`, e.g. task.countdown_scheme) count only away from their default, so older configs keep their
    keys and cached policies; the warm-start section's added keys were hashed from the start, and stay so."""
    task = without_added_defaults(TaskConfig, asdict(config.task))
    payload = {"model": config.model.name, "task": task, "warmstart": asdict(config.warmstart)}
    return hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]


class WarmStartError(UserError, RuntimeError):
    """The warm start used all its steps without reaching its held-out accuracy target."""


def learning_rate(ws: WarmStartConfig, step: int) -> float:
    """The learning rate of supervised step `step` (1-based).

    Warm-up: lr x step / warmup_steps for step <= warmup_steps. Then, with decay=cosine, over the
    remaining n = steps - warmup_steps steps, progress p = (step - warmup_steps) / n in (0, 1]:
    lr x (m + (1 - m) (1 + cos(pi p)) / 2), m = min_lr_ratio, i.e. lr just after the warm-up and
    lr x m at the last step; decay=constant keeps lr."""
    if step <= ws.warmup_steps:
        return ws.lr * step / ws.warmup_steps
    if ws.decay == "constant" or ws.steps <= ws.warmup_steps:
        return ws.lr
    progress = (step - ws.warmup_steps) / (ws.steps - ws.warmup_steps)
    floor = ws.min_lr_ratio
    return ws.lr * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress)))


def is_eval_step(ws: WarmStartConfig, step: int) -> bool:
    """Whether the held-out accuracy is checked after `step`: every eval_every steps and at the last."""
    return step % ws.eval_every == 0 or step == ws.steps


def reached_target(ws: WarmStartConfig, accuracy: float) -> bool:
    """Whether the warm start may stop here (never without a target: it then runs all its steps)."""
    return ws.stop_at_accuracy is not None and accuracy >= ws.stop_at_accuracy


def check_target(ws: WarmStartConfig, history: list[dict]) -> None:
    """Raise WarmStartError when a target was set and the last check is below it."""
    if ws.stop_at_accuracy is None or not history:
        return
    last = history[-1]
    if last["greedy_accuracy"] < ws.stop_at_accuracy:
        best = max(history, key=lambda h: h["greedy_accuracy"])
        raise WarmStartError(
            f"warm start did not reach warmstart.stop_at_accuracy={ws.stop_at_accuracy} "
            f"(accuracy {last['greedy_accuracy']:.3f} at step {last['step']}, best {best['greedy_accuracy']:.3f} "
            f"at step {best['step']}); raise warmstart.steps or lower the target (docs/warm-start.md)"
        )


@contextmanager
def pinned_threads(threads: int | None) -> Iterator[None]:
    """Torch's intra-op thread count set to `threads` inside the block, restored after (None: untouched).

    A CPU matmul splits its sums across threads, and the split changes float rounding; over hundreds
    of steps that changes the trained weights. One count for every machine gives one starting policy."""
    if threads is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def warm_start(model, tokenizer, task, config: TrainConfig, log=print) -> dict:
    """Train `model` in place on (prompt, answer) pairs until the target; returns the key, the
    accuracy history, and the final accuracy and step (WarmStartError if the target is missed)."""
    ws = config.warmstart
    with pinned_threads(ws.threads):
        history = supervised_steps(model, tokenizer, task, config, log)
    check_target(ws, history)
    last = history[-1] if history else {"step": 0, "greedy_accuracy": None}
    return {
        "key": warm_start_key(config),
        "history": history,
        "steps": last["step"],
        "greedy_accuracy": last["greedy_accuracy"],
    }


def supervised_steps(model, tokenizer, task, config: TrainConfig, log=print) -> list[dict]:
    """The supervised loop: AdamW on the scheduled learning rate, held-out checks, stop at the target."""
    ws = config.warmstart
    heldout = task.heldout()
    max_new = config.rollout.max_new_tokens
    torch.manual_seed(ws.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=ws.lr)
    history = []
    model.train()
    for step in range(1, ws.steps + 1):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(ws, step)
        draw = getattr(task, "warmstart_batch", task.train_batch)  # a task may show only some solutions
        batch = supervised_batch(tokenizer, draw(step, ws.batch_size, seed=ws.seed + 99_991))
        loss = model(**batch).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if ws.grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), ws.grad_clip)
        optimizer.step()
        if is_eval_step(ws, step):
            accuracy = heldout_accuracy(model, tokenizer, heldout, max_new, greedy=True)
            history.append({"step": step, "loss": loss.item(), "greedy_accuracy": accuracy})
            log(f"warm start step {step}: loss {loss.item():.3f}, greedy held-out accuracy {accuracy:.3f}")
            if reached_target(ws, accuracy):
                break
    model.eval()
    return history


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


def starting_policy(config: TrainConfig, info: dict | None) -> dict:
    """The identity of the policy RL starts from (summary.json, MLflow params, Table 1): the model, the
    warm start's cache key, its final greedy held-out accuracy and its steps (key None: no warm start)."""
    if info is None:
        return {"model": config.model.name, "warm_start_key": None, "greedy_accuracy": None, "steps": 0}
    last = info["history"][-1] if info.get("history") else {}
    return {
        "model": config.model.name,
        "warm_start_key": info["key"],
        "greedy_accuracy": info.get("greedy_accuracy", last.get("greedy_accuracy")),
        "steps": info.get("steps", last.get("step", 0)),
    }


def starting_policy_label(identity: dict) -> str:
    """One line naming a starting policy (the MLflow tag `starting_policy`, Table 1's section):
    'warm start 3b27c4b46630 of tiny (greedy held-out 0.370 after 193 steps)' or 'tiny (no warm start)'."""
    if identity["warm_start_key"] is None:
        return f"{identity['model']} (no warm start)"
    accuracy = identity["greedy_accuracy"]
    shown = "?" if accuracy is None else f"{accuracy:.3f}"
    return (
        f"warm start {identity['warm_start_key']} of {identity['model']} "
        f"(greedy held-out {shown} after {identity['steps']} steps)"
    )
