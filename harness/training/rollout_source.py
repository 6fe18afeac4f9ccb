"""Where a step's rollouts come from: one interface, a synchronous and an asynchronous source.

    rollouts = rollout_source(config, policy, tokenizer, task)    # chosen once, by rollout.staleness
    rollouts.start(policy, step, ranks)                 # training starts (or resumes) at `step`
    graded = rollouts.batch(step, metrics)              # the step's graded rows and those it trains on
    ...policy update...
    metrics.maxima.update(rollouts.publish(policy, version=step + 1))   # the new weights
    rollouts.close()

A source owns the rollout engine, the reward and dynamic sampling (harness.training.step_batch): the
trainer only asks it for a batch. `SyncSource` (rollout.staleness 0) generates and grades on the
trainer, between its updates. `AsyncSource` (staleness K >= 1) has each rank's worker process
(harness.training.async_rollout) generate the batches K steps ahead, on a fixed schedule, and records
in `metrics` the rows' version lags and the worker's time (docs/async-rl.md).

Dynamic sampling makes every rank train on as many groups as the rank that kept the fewest: `Ranks`
gives a source its place among the data-parallel ranks and the reducer for that minimum.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import torch

from harness.training.async_rollout import AsyncRollouts
from harness.training.rewards import MathReward
from harness.training.step_batch import (
    GradedRollouts,
    StepRollouts,
    collect_step_rollouts,
    grade_step_rollouts,
    make_engine,
    sample_step,
)
from harness.training.step_metrics import StepMetrics


@dataclass(frozen=True)
class Ranks:
    """This process's place among the data-parallel ranks, known once training starts."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0  # the rank on this machine (picks the worker's GPU)
    reduce: Callable[[torch.Tensor, str], torch.Tensor] = lambda value, op: value  # all-reduce: "sum", "max", "min"


class RolloutSource(Protocol):
    def start(self, policy, step: int, ranks: Ranks) -> None:
        """Get ready to serve from step `step` on, sampling from `policy`'s weights of now."""

    def batch(self, step: int, metrics: StepMetrics) -> GradedRollouts:
        """This rank's graded rollouts of step `step`, and the rows it trains on."""

    def publish(self, policy, version: int) -> dict[str, float]:
        """The policy's weights after `version` steps, for the rollouts to come; returns timing figures."""

    def close(self) -> None:
        """Stop whatever the source runs (safe to call twice)."""


def rollout_source(config, policy, tokenizer, task) -> RolloutSource:
    """The source rollout.staleness asks for."""
    return (AsyncSource if config.rollout.staleness else SyncSource)(config, policy, tokenizer, task)


def pad_id(tokenizer) -> int:
    return tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0


class SyncSource:
    """Rollouts generated and graded on the trainer, by the engine it builds at once (vLLM loads the
    starting folder here; `start` then pushes the weights of a resume or warm start)."""

    def __init__(self, config, policy, tokenizer, task):
        self.config, self.tokenizer, self.task = config, tokenizer, task
        self.backend = make_engine(config, policy, tokenizer)
        self.reward_fn = MathReward(config.reward, config.rollout.max_new_tokens)
        self.ranks = Ranks()

    def start(self, policy, step: int, ranks: Ranks) -> None:
        self.ranks = ranks
        self.backend.sync_weights(policy)

    def batch(self, step: int, metrics: StepMetrics) -> GradedRollouts:
        world, reduce = self.ranks.world, self.ranks.reduce
        return sample_step(self.graded, step, self.config, world, reduce, pad_id(self.tokenizer), metrics)

    def graded(self, position: int, regular: bool = True) -> tuple[StepRollouts, torch.Tensor, torch.Tensor, float]:
        """(rollouts, rewards [N], correct [N], seconds to generate and grade) of data position `position`."""
        t0 = time.perf_counter()
        sampled = self.collect(position)
        rewards, correct = grade_step_rollouts(self.reward_fn, sampled)
        return sampled, rewards, correct, time.perf_counter() - t0

    def collect(self, position: int) -> StepRollouts:
        """This rank's rollouts of data position `position` (harness.training.step_batch.collect_step_rollouts)."""
        rank, world = self.ranks.rank, self.ranks.world
        return collect_step_rollouts(self.config, self.task, self.tokenizer, self.backend, position, rank, world)

    def publish(self, policy, version: int) -> dict[str, float]:
        self.backend.sync_weights(policy)  # HF generate samples from the live policy: nothing to copy
        return {}

    def close(self) -> None:
        pass


class AsyncSource:
    """Rollouts from this rank's worker process, started with the training from the weights of then
    (a resume's or warm start's): the worker's engine, reward and schedule live there."""

    def __init__(self, config, policy, tokenizer, task):
        self.config, self.tokenizer, self.task = config, tokenizer, task
        self.worker: AsyncRollouts | None = None
        self.ranks = Ranks()

    def start(self, policy, step: int, ranks: Ranks) -> None:
        self.ranks = ranks
        self.worker = AsyncRollouts(
            self.config, policy, self.tokenizer, self.task, ranks.rank, ranks.world, step, ranks.local_rank
        )

    def batch(self, step: int, metrics: StepMetrics) -> GradedRollouts:
        world, reduce = self.ranks.world, self.ranks.reduce
        graded = sample_step(self.worker.fetch, step, self.config, world, reduce, pad_id(self.tokenizer), metrics)
        lag_metrics(metrics, step - graded.sampled.versions[graded.keep], largest_lag(self.config))
        metrics.maxima["worker_seconds"] = graded.worker_seconds
        return graded

    def publish(self, policy, version: int) -> dict[str, float]:
        if version >= self.config.run.steps:
            return {}  # no batch needs it
        t0 = time.perf_counter()
        self.worker.publish(policy, version)
        return {"publish_seconds": time.perf_counter() - t0}

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def largest_lag(config) -> int:
    """The largest version lag a row of this run can have: K, but never more than run.steps - 1 (the worker
    cannot run ahead of the run), so a K far above the run costs nothing (docs/async-rl.md)."""
    return max(min(config.rollout.staleness, config.run.steps - 1), 0)


def lag_metrics(metrics: StepMetrics, lags: torch.Tensor, bound: int) -> None:
    """staleness_mean / _max and the lag histogram staleness_lag0..bound of the rows' version lags [K_rows]
    (bound: `largest_lag`, one metric per possible lag)."""
    n = len(lags)
    metrics.add_scalar("staleness_mean", lags.float().sum(), n)
    metrics.maxima["staleness_max"] = max(metrics.maxima.get("staleness_max", 0.0), float(lags.max()) if n else 0.0)
    for lag in range(bound + 1):
        metrics.add_scalar(f"staleness_lag{lag}", (lags == lag).float().sum(), n)
