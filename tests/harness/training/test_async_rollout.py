"""Asynchronous rollouts (harness.training.async_rollout): the schedule, the recorded versions and log-probs,
failures."""

import copy
import os
import struct
import time
from pathlib import Path

import pytest
import torch

from harness.common.errors import ConfigError, WorkerError
from harness.models import load_model
from harness.rollout.engine import HFGenerateBackend
from harness.schema import load_train_config
from harness.tasks import build_task
from harness.training.async_rollout import AsyncRollouts
from harness.training.logprobs import response_logprobs
from harness.training.step_batch import collect_step_rollouts


def small_config(**overrides):
    return load_train_config(
        "tiny",
        None,
        {"rollout.prompts_per_step": 4, "rollout.top_p": 0.9, "run.steps": 6, "rollout.staleness": 1, **overrides},
    )


def scored(policy, sampled, temperature=1.0):
    """[N, T] log-probs of the sampled tokens under `policy` at the temperature, as the trainer scores them."""
    r = sampled.rollouts
    logp, _ = response_logprobs(policy, r.input_ids, r.attention_mask, r.prompt_ids.shape[1], temperature=temperature)
    return logp


def test_worker_batches_follow_the_schedule_with_the_generating_versions_log_probs(one_thread):
    config = small_config()
    policy, tokenizer = load_model("tiny")
    task = build_task(config.task)
    version0 = copy.deepcopy(policy)
    worker = AsyncRollouts(config, policy, tokenizer, task, 0, 1, start_step=0)
    try:
        sampled, rewards, correct, seconds = worker.fetch(0)
        assert seconds > 0 and len(rewards) == len(correct) == 4 * config.rollout.group_size
        assert sampled.versions.tolist() == [0] * len(rewards)
        # the worker generates what the synchronous loop generates from the same weights and seed
        here = collect_step_rollouts(config, task, tokenizer, HFGenerateBackend(policy, tokenizer), 0, 0, 1)
        assert torch.equal(sampled.rollouts.response_ids, here.rollouts.response_ids)
        assert sampled.rollouts.texts == here.rollouts.texts
        # behaviour log-probs: the policy's own at the temperature, before top-p, not the nucleus's
        mask = sampled.rollouts.response_mask.bool()
        torch.testing.assert_close(sampled.rollouts.logprobs[mask], scored(version0, sampled)[mask], atol=1e-5, rtol=0)

        # K = 1: step 1's batch needs version 0 and is made ahead; step 2's needs version 1, not yet published
        time.sleep(1.5)
        assert worker.started.value == 1
        with torch.no_grad():
            for p in policy.parameters():
                p.add_(0.05 * torch.randn_like(p))
        worker.publish(policy, version=1)
        step1, *_ = worker.fetch(1)
        step2, *_ = worker.fetch(2)
        assert step1.versions.unique().tolist() == [0] and step2.versions.unique().tolist() == [1]
        for batch, generator in ((step1, version0), (step2, policy)):
            m = batch.rollouts.response_mask.bool()
            torch.testing.assert_close(batch.rollouts.logprobs[m], scored(generator, batch)[m], atol=1e-5, rtol=0)
        moved = (scored(version0, step2) - scored(policy, step2))[step2.rollouts.response_mask.bool()].abs().max()
        assert moved > 1e-3  # the two versions are told apart
    finally:
        worker.close()
    assert worker.process is None


def test_lag_stays_within_the_bound_at_k4(one_thread):
    config = small_config(**{"rollout.staleness": 4, "run.steps": 8})
    policy, tokenizer = load_model("tiny")
    worker = AsyncRollouts(config, policy, tokenizer, build_task(config.task), 0, 1, start_step=2)
    try:
        for step in range(2, 8):
            sampled, *_ = worker.fetch(step)
            assert worker.started.value <= step + 4  # never more than K batches ahead
            lag = step - sampled.versions
            assert lag.unique().tolist() == [min(4, step - 2)]
            worker.publish(policy, version=step + 1)
    finally:
        worker.close()


def test_a_killed_worker_is_one_line_error_naming_it():
    config = small_config()
    policy, tokenizer = load_model("tiny")
    worker = AsyncRollouts(config, policy, tokenizer, build_task(config.task), 0, 1, start_step=0)
    try:
        worker.fetch(0)
        worker.process.kill()
        with pytest.raises(WorkerError, match=r"rank 0 \(pid \d+\) died \(killed by signal 9\).*--resume"):
            worker.fetch(1)
            worker.fetch(2)  # step 1's batch may have arrived before the kill
    finally:
        worker.close()


def half_a_message_then_death(spec, channel):
    """A worker killed in the middle of sending a batch: a length header of 1000 bytes, then 10 of them."""
    writer = channel[-1]
    os.write(writer.fileno(), struct.pack("!i", 1000) + b"x" * 10)
    os._exit(9)


def test_a_worker_dying_in_the_middle_of_a_message_does_not_hang_the_trainer(monkeypatch):
    import harness.training.async_rollout

    monkeypatch.setattr(harness.training.async_rollout, "worker_main", half_a_message_then_death)
    monkeypatch.syspath_prepend(str(Path(__file__).parents[3]))  # the spawned child imports this module by name
    config = small_config()
    policy, tokenizer = load_model("tiny")
    worker = AsyncRollouts(config, policy, tokenizer, build_task(config.task), 0, 1, start_step=0)
    try:
        with pytest.raises(WorkerError, match=r"rank 0 \(pid \d+\) died \(exit status 9\)"):
            worker.fetch(0)
    finally:
        worker.close()


def test_a_failing_worker_sends_its_error():
    config = small_config(**{"rollout.worker_device": "cuda:7"})  # no such device on this machine
    policy, tokenizer = load_model("tiny")
    worker = AsyncRollouts(config, policy, tokenizer, build_task(config.task), 0, 1, start_step=0)
    try:
        with pytest.raises(WorkerError, match="rollout worker of rank 0 failed: .*(CUDA|cuda)") as caught:
            worker.fetch(0)
        assert "\n" not in str(caught.value)
    finally:
        worker.close()


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"rollout.behaviour_cap": 3.0}, "rollout.behaviour_cap=3.0 applies to rollout.staleness >= 1"),
        ({"rollout.staleness_correction": "behaviour"}, "applies to rollout.staleness >= 1"),
        ({"rollout.staleness": 1, "rollout.tis_cap": 2.0}, "rollout.tis_cap=2.0 applies to rollout.staleness=0"),
        ({"rollout.staleness": 1, "run.strategy": "fsdp"}, "not fsdp"),
        ({"rollout.staleness": -1}, "rollout.staleness"),
    ],
)
def test_staleness_config_errors(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_train_config("tiny", None, overrides)
