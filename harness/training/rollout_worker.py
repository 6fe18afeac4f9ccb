"""The rollout worker process of asynchronous RL (harness.training.async_rollout has the trainer's side).

One per data-parallel rank, spawned. It holds a private copy of the policy, loads the published
weights before each batch that needs them, and generates and grades batches on the schedule
v(s) = max(s0, s - K) (see harness.training.async_rollout), plus dynamic sampling's extra batches on demand.

Results go back over a one-way pipe whose write end only this process holds: if it dies, even in
the middle of a message, the trainer's read ends with EOF instead of waiting forever. A sender
thread writes them, so that generation goes on while the trainer is busy and the pipe is full.
Each batch is pickled to plain bytes here (torch's shared-memory tensor handles would need this
process alive when the trainer opens them).
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import pickle
import queue
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

import torch
import torch.multiprocessing as mp

from harness.common.errors import first_line
from harness.training.async_checks import check_shared_memory

POLL_S = 0.02  # how often a waiting side looks at the other one


@dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker needs to build its copy of the sampler (picklable, sent once at spawn)."""

    config: Any  # TrainConfig
    model_config: Any  # the policy's transformers PretrainedConfig
    generation_config: Any
    dtype: torch.dtype
    tokenizer: Any
    task: Any
    rank: int
    world: int
    start_step: int
    steps: int  # the run's length: no batch past steps - 1
    device: str
    threads: int

    def version_for(self, step: int) -> int:
        """v(s) = max(s0, s - K): the policy version that generates step s's batch."""
        return max(self.start_step, step - self.config.rollout.staleness)

    def position(self, step: int) -> int:
        """The data position of step s's first generation batch (see harness.training.step_batch)."""
        algo = self.config.algo
        return step * algo.max_gen_batches if algo.dynamic_sampling else step


def distinct(state: dict[str, torch.Tensor]) -> list[tuple[str, torch.Tensor]]:
    """The state's (name, tensor) pairs, each storage once (tied embeddings share one)."""
    seen, out = set(), []
    for name, tensor in state.items():
        if tensor.data_ptr() not in seen:
            seen.add(tensor.data_ptr())
            out.append((name, tensor))
    return out


def shared_copy(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A shared-memory CPU copy of the state; tied names map to one shared tensor (pickled once)."""
    check_shared_memory(state)  # one line naming /dev/shm instead of share_memory_()'s traceback
    shared, by_storage = {}, {}
    for name, tensor in state.items():
        key = tensor.data_ptr()
        if key not in by_storage:
            by_storage[key] = tensor.detach().to("cpu", copy=True).share_memory_()
        shared[name] = by_storage[key]
    return shared


def die_with_trainer() -> None:
    """The kernel kills this process when its parent dies; Ctrl-C is the trainer's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    if mp.parent_process() is not None and not mp.parent_process().is_alive():
        os._exit(1)


def build_worker_model(spec: WorkerSpec, shared: dict[str, torch.Tensor]):
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_config(spec.model_config, dtype=spec.dtype)
    model.generation_config = spec.generation_config
    model.load_state_dict(shared, strict=True)
    return model.to(spec.device).eval().requires_grad_(False)


class Sender:
    """Writes messages to the trainer's pipe from a thread of its own, in order."""

    def __init__(self, connection):
        self.connection = connection
        self.pending: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._send, name="rollout-sender", daemon=True)
        self.thread.start()

    def _send(self) -> None:
        while (message := self.pending.get()) is not None:
            try:
                self.connection.send(message)
            except OSError:  # the trainer is gone: nothing to tell
                return

    def put(self, message) -> None:
        self.pending.put(message)

    def close(self) -> None:
        """Send what is pending, then stop."""
        self.pending.put(None)
        self.thread.join(timeout=30)
        self.connection.close()


def worker_main(spec: WorkerSpec, channel: tuple) -> None:
    shared, lock, published, started, requests, connection = channel
    results = Sender(connection)
    try:
        die_with_trainer()
        torch.set_num_threads(spec.threads)
        Worker(spec, shared, lock, published, started).run(requests, results)
    except BaseException as error:  # noqa: BLE001 - everything goes back to the trainer as one line
        results.put(("error", first_line(error)))
    finally:
        results.close()


class Worker:
    """Generates the schedule's batches in order and the extra ones on demand."""

    def __init__(self, spec: WorkerSpec, shared, lock, published, started):
        from harness.training.rewards import MathReward
        from harness.training.step_batch import make_engine

        self.spec, self.shared, self.lock, self.published, self.started = spec, shared, lock, published, started
        config = spec.config
        self.model = build_worker_model(spec, shared)
        self.version = spec.start_step
        self.backend = make_engine(config, self.model, spec.tokenizer)  # the trainer's engine settings, dtype included
        self.reward_fn = MathReward(config.reward, config.rollout.max_new_tokens)

    def load(self) -> None:
        """Copy the published weights in, if they are newer than this worker's."""
        with self.lock, torch.no_grad():
            version = self.published.value
            if version != self.version:
                for name, tensor in distinct(self.model.state_dict()):
                    tensor.copy_(self.shared[name])
                self.backend.sync_weights(self.model)
                self.version = version

    def serve(self, position: int, results) -> None:
        from harness.training.step_batch import collect_step_rollouts, grade_step_rollouts

        spec = self.spec
        t0 = time.perf_counter()
        sampled = collect_step_rollouts(
            spec.config, spec.task, spec.tokenizer, self.backend, position, spec.rank, spec.world
        )
        versions = torch.full((len(sampled.answers),), self.version, dtype=torch.long)  # [N]
        sampled = dataclasses.replace(sampled, versions=versions)
        rewards, correct = grade_step_rollouts(self.reward_fn, sampled)
        payload = pickle.dumps((sampled, rewards, correct, time.perf_counter() - t0), protocol=pickle.HIGHEST_PROTOCOL)
        results.put(("batch", position, payload))

    def run(self, requests, results) -> None:
        spec = self.spec
        step = spec.start_step
        while True:
            try:
                message = requests.get(timeout=POLL_S if step < spec.steps else 1.0)
            except queue.Empty:
                message = None
            if message is not None and message[0] == "stop":
                return
            if message is not None:  # ("extra", position): now, by the newest weights
                self.load()
                self.serve(message[1], results)
                continue
            if step < spec.steps and self.published.value >= spec.version_for(step):
                self.load()  # exactly version_for(step): the trainer waits for `started` before moving on
                self.started.value = step
                self.serve(spec.position(step), results)
                step += 1
            elif mp.parent_process() is not None and not mp.parent_process().is_alive():
                return
