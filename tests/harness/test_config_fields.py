"""harness.config_fields: what a field declares (resumable, since, applies) and the questions asked of a
config tree through it, on a made-up config of two sections and on the training config."""

from dataclasses import dataclass, field
from typing import Literal

import pytest

from harness.common.errors import ConfigError
from harness.config_fields import Applies, added_keys, check_applies, param, resumable_keys, without_added_defaults
from harness.dataclass_config import build_config
from harness.schema import TrainConfig, load_train_config


@dataclass(frozen=True)
class Engine:
    mode: Literal["sync", "async"] = "sync"
    lag: int = param(0, ge=0, since="c0ffee", applies=Applies("engine.mode", "=", "async"))
    threads: int = param(1, ge=1, resumable=True)


@dataclass(frozen=True)
class Job:
    steps: int = param(10, ge=1, resumable=True)
    label: str | None = param(None, since="c0ffee")
    verbose: bool = param(False, applies=Applies("job.steps", ">=", 100, "short jobs print everything anyway"))


@dataclass(frozen=True)
class Root:
    engine: Engine = field(default_factory=Engine)
    job: Job = field(default_factory=Job)


def test_the_queries_read_every_section():
    assert resumable_keys(Root) == ("engine.threads", "job.steps")
    assert added_keys(Root) == {"engine.lag": 0, "job.label": None}


def test_added_keys_at_their_default_leave_an_identity_and_any_other_value_stays():
    flat = {"engine.mode": "sync", "engine.lag": 0, "job.steps": 3, "job.label": None}
    assert without_added_defaults(Root, flat) == {"engine.mode": "sync", "job.steps": 3}
    assert without_added_defaults(Root, {**flat, "engine.lag": 2, "job.label": "x"}) == {
        "engine.mode": "sync",
        "engine.lag": 2,
        "job.steps": 3,
        "job.label": "x",
    }
    old = {"engine.mode": "sync", "job.steps": 3}  # written before the keys existed
    assert without_added_defaults(Root, old) == old


def test_a_field_set_where_it_does_not_apply_is_refused_in_one_line():
    with pytest.raises(ConfigError) as info:
        check_applies(Root(engine=Engine(lag=2)))
    assert str(info.value) == "engine.lag=2 applies to engine.mode=async"
    with pytest.raises(ConfigError) as info:
        check_applies(Root(job=Job(verbose=True)))
    assert str(info.value) == "job.verbose=True applies to job.steps >= 100; short jobs print everything anyway"
    check_applies(Root(engine=Engine("async", 2), job=Job(steps=100, verbose=True)))  # where they apply
    check_applies(Root(job=Job(steps=5, verbose=False)))  # at its default it applies everywhere


def test_param_keeps_checking_bounds():
    with pytest.raises(ConfigError, match=r"engine.lag=-1 is out of range; allowed: >= 0"):
        build_config(Root, {"engine": {"lag": -1}})


def test_the_training_config_declares_what_the_hand_lists_held():
    """The keys `--resume` may change and the keys added with asynchronous RL, as schema.RESUMABLE_KEYS and
    schema.LATER_KEYS listed them before the metadata replaced them."""
    assert set(resumable_keys(TrainConfig)) == {
        *("run.steps", "run.checkpoint_every", "run.max_bad_steps", "run.eval_every", "run.eval_suite"),
        *("run.eval_limit", "run.eval_max_new_tokens", "run.threads", "run.rollout_samples", "run.artifact_root"),
        *("run.tags", "reward.suspect_sample", "reward.suspect_warn", "rollout.batch_size"),
        *("rollout.gpu_memory_utilization", "rollout.kv_cache_gb", "algo.micro_batch_size", "algo.logprob_chunk"),
        *("rollout.worker_threads", "rollout.worker_device"),
    }
    assert added_keys(TrainConfig) == {
        "rollout.staleness": 0,
        "rollout.staleness_correction": "decoupled",
        "rollout.behaviour_cap": 2.0,
        "rollout.worker_threads": 1,
        "rollout.worker_device": None,
        # the warm start's schedule (issue 32): at these defaults a config warm-starts as before
        "warmstart.warmup_steps": 0,
        "warmstart.decay": "constant",
        "warmstart.min_lr_ratio": 1.0,
        "warmstart.grad_clip": None,
        "warmstart.threads": None,
        # issue 31: the 80/20 rule and the mismatch corrections, off by default
        "algo.top_entropy_quantile": None,
        "rollout.mismatch": "none",
        "rollout.mismatch_low": None,
        "rollout.mismatch_high": None,
        # issue 27: Countdown's schemes, the full game by default
        "task.countdown_scheme": "full",
    }


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"rollout.gen_batch_prompts": 128}, "rollout.gen_batch_prompts=128 applies to algo.dynamic_sampling=true"),
        ({"algo.filter_metric": "reward"}, "algo.filter_metric='reward' applies to algo.dynamic_sampling=true"),
        ({"rollout.worker_device": "cpu"}, "rollout.worker_device='cpu' applies to rollout.staleness >= 1"),
        ({"task.countdown_scheme": "addsub"}, "task.countdown_scheme='addsub' applies to task.source=countdown"),
        (
            {"rollout.staleness": 1, "rollout.tis_cap": 2.0},
            "rollout.tis_cap=2.0 applies to rollout.staleness=0; with staleness the behaviour log-probs are the "
            "engine's own, and staleness_correction=decoupled (rollout.behaviour_cap) covers the mismatch",
        ),
    ],
)
def test_the_training_configs_conditions_keep_their_messages(overrides, message):
    with pytest.raises(ConfigError) as info:
        load_train_config("tiny", None, overrides)
    assert str(info.value) == message


def test_where_the_conditions_hold_the_keys_are_taken():
    config = load_train_config("tiny", None, {"algo.dynamic_sampling": True, "algo.max_gen_batches": 3})
    assert config.algo.max_gen_batches == 3
    config = load_train_config("tiny", None, {"rollout.staleness": 2, "rollout.behaviour_cap": 3.0})
    assert (config.rollout.staleness, config.rollout.behaviour_cap) == (2, 3.0)


def test_the_readme_lists_every_key_a_resume_may_change():
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    for key in resumable_keys(TrainConfig):
        shown = "run.eval_*" if key.startswith("run.eval_") else key
        assert f"`{shown}`" in readme, f"README's resume paragraph does not list {shown}"
