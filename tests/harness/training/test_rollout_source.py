"""Rollout sources (harness.training.rollout_source): the synchronous and the asynchronous source each give
the batch of a step, dynamic sampling takes the minimum over ranks through the source's reducer, the lag
figures, and one set of engine settings for the trainer and the workers."""

import pytest
import torch

from harness.models import load_model
from harness.rollout.engine import HFGenerateBackend
from harness.schema import load_train_config
from harness.tasks import build_task
from harness.training.rollout_source import AsyncSource, Ranks, SyncSource, lag_metrics, largest_lag, rollout_source
from harness.training.step_batch import collect_step_rollouts, engine_options, sample_step
from harness.training.step_metrics import StepMetrics


def small_config(**overrides):
    return load_train_config(
        "tiny", None, {"rollout.prompts_per_step": 4, "rollout.top_p": 0.9, "run.steps": 3, **overrides}
    )


def test_the_config_picks_the_source():
    policy, tokenizer = load_model("tiny")
    for staleness, kind in ((0, SyncSource), (1, AsyncSource)):
        config = small_config(**{"rollout.staleness": staleness})
        assert type(rollout_source(config, policy, tokenizer, build_task(config.task))) is kind


def test_the_sync_source_gives_the_batch_of_a_step():
    config = small_config()
    policy, tokenizer = load_model("tiny")
    task = build_task(config.task)
    source = SyncSource(config, policy, tokenizer, task)
    source.start(policy, 0, Ranks())
    metrics = StepMetrics()
    graded = source.batch(1, metrics)
    G = config.rollout.group_size
    assert len(graded.rewards) == len(graded.correct) == 4 * G and graded.keep.all() and graded.gen_batches == 1
    assert graded.sampled.versions is None and graded.worker_seconds > 0
    # step 1's prompts and seed: what collecting data position 1 by hand gives, graded by the source's reward
    here = collect_step_rollouts(config, task, tokenizer, HFGenerateBackend(policy, tokenizer), 1, 0, 1)
    assert torch.equal(graded.sampled.rollouts.response_ids, here.rollouts.response_ids)
    assert graded.sampled.problems == here.problems
    rewards, correct = source.reward_fn(
        here.rollouts.texts, here.answers, here.rollouts.response_mask.sum(-1), problems=here.problems,
        truncated=here.rollouts.truncated,
    )  # fmt: skip
    assert torch.equal(graded.rewards, rewards) and torch.equal(graded.correct, correct)
    assert metrics.reduce(lambda t, op: t) == {"skipped_updates": 0.0}  # nothing of the source's own to log
    assert source.publish(policy, version=2) == {}
    source.close()


def test_the_async_source_gives_the_batch_of_a_step(one_thread):
    config = small_config(**{"rollout.staleness": 1})
    policy, tokenizer = load_model("tiny")
    task = build_task(config.task)
    source = AsyncSource(config, policy, tokenizer, task)
    source.start(policy, 0, Ranks())
    try:
        metrics = StepMetrics()
        graded = source.batch(0, metrics)
        assert len(graded.rewards) == 4 * config.rollout.group_size and graded.keep.all()
        assert graded.sampled.versions.tolist() == [0] * len(graded.rewards)  # made by the starting weights
        here = collect_step_rollouts(config, task, tokenizer, HFGenerateBackend(policy, tokenizer), 0, 0, 1)
        assert torch.equal(graded.sampled.rollouts.response_ids, here.rollouts.response_ids)
        out = metrics.reduce(lambda t, op: t)
        assert out["staleness_mean"] == 0 and out["staleness_lag0"] == 1.0 and out["staleness_lag1"] == 0.0
        assert out["worker_seconds"] == pytest.approx(graded.worker_seconds) and graded.worker_seconds > 0
        assert set(source.publish(policy, version=1)) == {"publish_seconds"}
        assert source.publish(policy, version=3) == {}  # past the run's last step: no batch needs it
    finally:
        source.close()
    assert source.worker is None
    source.close()  # twice is fine


def scripted(counts_by_position, G=2):
    """A `graded(position, regular)` whose generation batch at each position has groups with the given
    numbers of correct answers (of G); records the positions asked for."""
    from harness.rollout.engine import Rollouts
    from harness.training.step_batch import StepRollouts

    asked = []

    def graded(position, regular):
        asked.append((position, regular))
        correct = torch.tensor([g < right for right in counts_by_position[position] for g in range(G)])  # [N]
        n = len(correct)
        ids = torch.ones(n, 1, dtype=torch.long)
        rollouts = Rollouts(ids, ids, ids, ids, torch.zeros(n, dtype=torch.bool), ["x"] * n, torch.arange(n) // G)
        return StepRollouts(rollouts, ["1"] * n, ["p"] * n), correct.float(), correct, 0.5

    return graded, asked


def test_dynamic_sampling_trains_on_the_fewest_groups_any_rank_kept():
    config = small_config(
        **{
            "algo.dynamic_sampling": True,
            "algo.max_gen_batches": 3,
            "rollout.group_size": 2,
            "rollout.prompts_per_step": 4,
        }
    )
    # this rank (of 2) wants 2 groups; its first batch has 2 mixed groups, but the other rank kept only 1
    graded, asked = scripted({3: [1, 1], 4: [1, 0], 5: [1, 2]})
    other_rank_kept = torch.tensor(1)
    calls = []

    def reduce(value, op):
        calls.append(op)
        return torch.minimum(value, other_rank_kept)

    metrics = StepMetrics()
    out = sample_step(graded, 1, config, 2, reduce, pad_id=0, metrics=metrics)
    assert asked == [(3, True), (4, False), (5, False)]  # step 1's positions 3..5: the first is the regular one
    assert calls == ["min"] * 3
    assert out.keep.tolist() == [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  # one group, the first mixed one
    assert out.gen_batches == 3 and out.worker_seconds == 1.5
    figures = metrics.reduce(lambda t, op: t)
    assert figures["gen_batches"] == 3 and figures["kept_prompts"] == 1
    # alone, the same rank stops after its first batch
    graded, asked = scripted({3: [1, 1]})
    out = sample_step(graded, 1, config, 2, lambda value, op: value, pad_id=0, metrics=StepMetrics())
    assert asked == [(3, True)] and out.keep.all()


def test_lag_metrics_golden():
    metrics = StepMetrics()
    lag_metrics(metrics, torch.tensor([0, 1, 1, 2]), bound=2)
    out = metrics.reduce(lambda t, op: t)
    assert out["staleness_mean"] == pytest.approx(1.0) and out["staleness_max"] == 2
    assert [out[f"staleness_lag{k}"] for k in range(3)] == [0.25, 0.5, 0.25]


def test_the_trainer_and_the_workers_share_one_set_of_engine_settings():
    config = small_config(**{"run.precision": "bf16-mixed", "rollout.kv_cache_gb": 2.0, "run.seed": 5})
    options = engine_options(config)
    assert options.dtype == "bfloat16" and options.kv_cache_gb == 2.0 and options.seed == 5
    assert engine_options(small_config()).dtype is None  # 32-bit: the policy's own dtype


def test_the_lag_histogram_stops_at_the_largest_possible_lag():
    assert largest_lag(small_config(**{"rollout.staleness": 4, "run.steps": 300})) == 4
    assert largest_lag(small_config(**{"rollout.staleness": 4, "run.steps": 3})) == 2
    assert largest_lag(small_config(**{"rollout.staleness": 1, "run.steps": 1})) == 0


def test_a_staleness_far_above_the_run_logs_only_the_lags_it_can_have(one_thread):
    # K = 10**9 used to build one histogram metric per lag up to K at step 0: a hang, memory growing
    config = small_config(**{"rollout.staleness": 10**9, "run.steps": 2})
    policy, tokenizer = load_model("tiny")
    source = AsyncSource(config, policy, tokenizer, build_task(config.task))
    source.start(policy, 0, Ranks())
    try:
        metrics = StepMetrics()
        source.batch(0, metrics)
        out = metrics.reduce(lambda t, op: t)
    finally:
        source.close()
    assert sorted(key for key in out if key.startswith("staleness_lag")) == ["staleness_lag0", "staleness_lag1"]
    assert out["staleness_lag0"] == 1.0
