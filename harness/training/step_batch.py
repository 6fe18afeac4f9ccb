"""The rollout batch of one RL step, and dynamic sampling as the official DAPO / CE-GPPO recipes run it.

Both rollout sources (harness.training.rollout_source) build their engine with `make_engine`, collect a
generation batch with `collect_step_rollouts`, grade it with `grade_step_rollouts` and assemble a
step with `sample_step`; the asynchronous one does the first three in its worker process.

Without dynamic sampling a step rolls out `rollout.prompts_per_step` prompts once and trains on all
of them. With `algo.dynamic_sampling` (DAPO, arXiv 2503.14476; verl's `algorithm.filter_groups`
with metric `acc`, recipe/dapo/src/dapo_ray_trainer.py of github.com/Kwai-Klear/CE-GPPO@10558fe):

    repeat up to algo.max_gen_batches times:
        roll out one generation batch of rollout.gen_batch_prompts prompts (G completions each)
        keep the groups whose accuracies are not all equal ("mixed": all-correct and all-wrong
        groups have every advantage 0 and only dilute the batch)
        stop once the kept groups reach rollout.prompts_per_step
    train on the first prompts_per_step kept groups, in generation order (fewer if fewer were kept)

Differences from the official code, all forced by running each data-parallel rank on its own share:
each rank filters its own rollouts and every rank then keeps as many groups as the rank that kept
the fewest (the official trainer pools all ranks' groups and rounds the pool down to a multiple of
the world size); and generation batch j of step s reads the prompts at data position
s * max_gen_batches + j, so a step is a pure function of (seed, step) and a resume is exact (the
official dataloader hands out batches in sequence, and its endless mode, max_num_gen_batches 0, has
no counterpart here).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

import torch

from algorithms import dynamic_sampling_filter
from harness.rollout.backends import make_backend
from harness.rollout.engine import EngineOptions, RolloutBackend, Rollouts, SamplingParams, sample_messages
from harness.training.step_metrics import StepMetrics


@dataclass(frozen=True)
class StepRollouts:
    """One rank's rollouts of a step and, for each row, what the grader needs besides the completion."""

    rollouts: Rollouts
    answers: list[str]  # [N] the reference answer of each row's problem
    problems: list[str]  # [N] the problem text of each row (the grader refuses a restated question)
    versions: torch.Tensor | None = None  # [N] long: the policy version that generated each row (async rollouts)


@dataclass(frozen=True)
class GradedRollouts:
    """Every row a step generated (all its generation batches), graded, and the rows it trains on."""

    sampled: StepRollouts
    rewards: torch.Tensor  # [N]
    correct: torch.Tensor  # [N] bool
    keep: torch.Tensor  # [N] bool: the rows of the kept groups
    gen_batches: int
    worker_seconds: float = 0.0  # time the generation batches took to generate and grade


def step_seed(seed: int, position: int, rank: int) -> int:
    """The sampling seed of data position `position` on rank `rank`."""
    return seed * 7919 + position * 104_729 + rank


def engine_options(config) -> EngineOptions:
    """The rollout engine's settings from a TrainConfig: the trainer's engine and the workers' alike."""
    rollout = config.rollout
    return EngineOptions(
        gpu_memory_utilization=rollout.gpu_memory_utilization,
        kv_cache_gb=rollout.kv_cache_gb,
        tensor_parallel_size=rollout.tensor_parallel_size,
        seed=config.run.seed,
        # The engine computes in the trainer's compute dtype (bf16 mixed precision: bf16).
        dtype="bfloat16" if config.run.precision.startswith("bf16") else None,
    )


def make_engine(config, model, tokenizer) -> RolloutBackend:
    """The configured rollout engine (rollout.backend) sampling from `model`."""
    return make_backend(config.rollout.backend, model, tokenizer, config.rollout.batch_size, engine_options(config))


def collect_step_rollouts(config, task, tokenizer, backend, position: int, rank: int, world: int) -> StepRollouts:
    """Rank `rank`'s rollouts of data position `position` (the step, or with dynamic sampling one of its
    generation batches), with each row's reference answer and problem text. The trainer calls it, or with
    rollout.staleness >= 1 each rank's rollout worker (harness.training.rollout_worker)."""
    rollout = config.rollout
    count = rollout.gen_batch_prompts or rollout.prompts_per_step
    problems = task.train_batch(position, count, config.run.seed)[rank::world]
    params = SamplingParams(
        rollout.max_new_tokens,
        rollout.temperature,
        rollout.top_p,
        seed=step_seed(config.run.seed, position, rank),
        # the sampling log-probs: for the mismatch corrections (tis_cap, mismatch), and as the behaviour policy
        logprobs=rollout.tis_cap is not None or rollout.mismatch != "none" or rollout.staleness > 0,
        # with staleness, the behaviour policy as the trainer scores it (algorithms.corrections)
        raw_logprobs=rollout.staleness > 0,
    )
    rollouts = sample_messages(backend, tokenizer, [p.prompt for p in problems], rollout.group_size, params)
    rows = rollouts.prompt_index.tolist()  # [N] the problem of each row
    return StepRollouts(rollouts, [problems[i].answer for i in rows], [problems[i].prompt for i in rows])


def grade_step_rollouts(reward_fn, sampled: StepRollouts) -> tuple[torch.Tensor, torch.Tensor]:
    """(rewards [N], correct [N]) of the rows, graded knowing each row's problem and truncation."""
    rollouts = sampled.rollouts
    lengths = rollouts.response_mask.sum(-1)  # [N]
    return reward_fn(rollouts.texts, sampled.answers, lengths, problems=sampled.problems, truncated=rollouts.truncated)


def _pad_to(tensor: torch.Tensor, width: int, value, left: bool) -> torch.Tensor:
    missing = width - tensor.shape[1]
    if missing == 0:
        return tensor
    pad = torch.full((tensor.shape[0], missing), value, dtype=tensor.dtype, device=tensor.device)
    return torch.cat([pad, tensor] if left else [tensor, pad], dim=1)


def concat_rollouts(parts: list[Rollouts], pad_id: int) -> Rollouts:
    """Rows of several rollout batches as one: prompts left-padded, responses right-padded to the
    longest; prompt indices keep counting across the parts."""
    if len(parts) == 1:
        return parts[0]
    P = max(p.prompt_ids.shape[1] for p in parts)
    T = max(p.response_ids.shape[1] for p in parts)
    offsets, start = [], 0
    for part in parts:
        offsets.append(start)
        start += int(part.prompt_index.max()) + 1 if len(part.prompt_index) else 0
    with_logprobs = all(p.logprobs is not None for p in parts)
    return Rollouts(
        torch.cat([_pad_to(p.prompt_ids, P, pad_id, left=True) for p in parts]),  # [N, P]
        torch.cat([_pad_to(p.prompt_mask, P, 0, left=True) for p in parts]),
        torch.cat([_pad_to(p.response_ids, T, pad_id, left=False) for p in parts]),  # [N, T]
        torch.cat([_pad_to(p.response_mask, T, 0, left=False) for p in parts]),
        torch.cat([p.truncated for p in parts]),
        [text for p in parts for text in p.texts],
        torch.cat([p.prompt_index + offset for p, offset in zip(parts, offsets)]),
        torch.cat([_pad_to(p.logprobs, T, 0.0, left=False) for p in parts]) if with_logprobs else None,
    )


def concat_step_rollouts(parts: list[StepRollouts], pad_id: int) -> StepRollouts:
    return StepRollouts(
        concat_rollouts([p.rollouts for p in parts], pad_id),
        [a for p in parts for a in p.answers],
        [q for p in parts for q in p.problems],
        torch.cat([p.versions for p in parts]) if all(p.versions is not None for p in parts) else None,
    )


def mixed_groups(values: torch.Tensor, group_size: int) -> torch.Tensor:
    """[num_groups] bool: groups whose values are not all equal. The official filter's metric is `acc`
    (whether each answer is correct; algo.filter_metric=acc), not the shaped reward."""
    return dynamic_sampling_filter(values.float(), group_size)


def first_groups(mixed: torch.Tensor, count: int, group_size: int) -> torch.Tensor:
    """[num_groups * G] bool rows of the first `count` mixed groups, in generation order."""
    order = torch.cumsum(mixed.long(), 0)  # [num_groups] how many mixed groups up to this one
    chosen = mixed & (order <= count)  # [num_groups]
    return chosen.repeat_interleave(group_size)


# (rollouts, rewards [N], correct [N], seconds) of a data position; `regular`: a step's first generation batch
GradedBatch = Callable[[int, bool], tuple[StepRollouts, torch.Tensor, torch.Tensor, float]]


def sample_step(
    graded: GradedBatch, step: int, config, world: int, reduce, pad_id: int, metrics: StepMetrics
) -> GradedRollouts:
    """This rank's graded rollouts of step `step` and the rows it trains on: one generation batch, or with
    algo.dynamic_sampling up to algo.max_gen_batches of them (see the module docstring), whose counts go into
    `metrics` (gen_batches, kept_prompts). `graded(position, regular)` rolls out and grades one data position;
    `reduce(tensor, "min")` takes the minimum over the `world` data-parallel ranks (the identity on one process)."""
    algo, rollout = config.algo, config.rollout
    G = rollout.group_size
    if not algo.dynamic_sampling:
        sampled, rewards, correct, seconds = graded(step, True)
        keep = torch.ones(len(rewards), dtype=torch.bool)
        return GradedRollouts(sampled, rewards, correct, keep, 1, seconds)
    wanted = rollout.prompts_per_step // world  # groups this rank trains on at most
    parts, rewards, correct, seconds = [], [], [], 0.0
    for index in range(algo.max_gen_batches):
        part, batch_rewards, batch_correct, part_seconds = graded(step * algo.max_gen_batches + index, index == 0)
        parts.append(part)
        seconds += part_seconds
        rewards.append(batch_rewards)
        correct.append(batch_correct)
        varied = torch.cat(correct) if algo.filter_metric == "acc" else torch.cat(rewards)  # [N so far]
        mixed = mixed_groups(varied, G)  # [groups so far]
        # every rank trains on as many groups as the rank that kept the fewest
        kept = int(reduce(torch.tensor(min(int(mixed.sum()), wanted)), "min"))
        if kept >= wanted:
            break
        done = index + 1
        if done >= 4 and done & (done - 1) == 0:  # a progress line at 4, 8, 16, ... batches (a long search says so)
            print(
                f"step {step}: {done} of up to {algo.max_gen_batches} generation batches, "
                f"{kept} of {wanted} groups kept so far",
                file=sys.stderr,
                flush=True,
            )
    sampled = concat_step_rollouts(parts, pad_id)
    keep = first_groups(mixed, kept, G)
    metrics.add_scalar("gen_batches", len(parts), 1)
    metrics.add_scalar("kept_prompts", keep.sum() / G, 1)
    return GradedRollouts(sampled, torch.cat(rewards), torch.cat(correct), keep, len(parts), seconds)
