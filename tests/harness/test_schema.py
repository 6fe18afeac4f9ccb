"""harness.schema: no key is accepted and then ignored.

Every field of every config section is recorded when code outside the config machinery reads it,
while short runs exercise each code path (training with every optional feature on, a JSONL task,
evaluation). A key that validates but that no code ever reads (as `rollout.backend: vllm` once
was) fails the test, and so does a key of a shipped profile that is not such a field.
"""

import dataclasses
import json
import sys
import typing

import pytest

from harness.common.errors import ConfigError
from harness.dataclass_config import build_config, help_rows, load_yaml
from harness.evaluate import evaluate_model
from harness.models import load_model
from harness.profiles import PROFILES
from harness.schema import EvalConfig, TaskConfig, TrainConfig, load_train_config
from harness.tasks import build_task
from harness.tracking import flatten
from harness.training.train import make_strategy, train

# Reads by the config machinery itself (validation, dict conversion, generated dataclass methods)
# do not count: they read every field whether or not anything uses it.
NOT_USES = ("/harness/dataclass_config.py", "/harness/schema.py", "/dataclasses.py", "<string>")


def sections(cls: type, prefix: str = "") -> dict[type, str]:
    """{config class: its dotted path} for a config tree."""
    found = {cls: prefix.rstrip(".")}
    hints = typing.get_type_hints(cls)
    for fld in dataclasses.fields(cls):
        if dataclasses.is_dataclass(hints[fld.name]):
            found.update(sections(hints[fld.name], f"{prefix}{fld.name}."))
    return found


@pytest.fixture
def reads(monkeypatch):
    seen: set[str] = set()
    for cls, path in {**sections(TrainConfig), EvalConfig: "eval"}.items():
        names = {f.name for f in dataclasses.fields(cls)}

        def recording(self, name, _names=names, _path=path):
            if name in _names and not sys._getframe(1).f_code.co_filename.endswith(NOT_USES):
                seen.add(f"{_path}.{name}".lstrip("."))
            return object.__getattribute__(self, name)

        monkeypatch.setattr(cls, "__getattribute__", recording)
    return seen


def test_every_config_key_is_read_by_the_code(reads, tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path / "cache"))  # the warm start must run, not be cached
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    everything_on = {
        "run.steps": 2,
        "run.output_dir": str(tmp_path / "a"),
        "run.tracking_uri": uri,
        "run.run_name": "keys",
        "run.eval_every": 1,
        "run.eval_suite": "arith_l1_compact",
        "run.eval_limit": 2,
        "run.eval_max_new_tokens": 4,
        "warmstart.steps": 4,
        "warmstart.eval_every": 2,
        "warmstart.stop_at_accuracy": 0.0,  # reached at the first check: read, and no WarmStartError
        "warmstart.warmup_steps": 1,  # so that step 2 is past the warm-up and reads the decay keys
        "task.heldout_size": 4,
        "rollout.prompts_per_step": 4,
        "rollout.group_size": 2,
        "algo.mini_batches": 2,
        "algo.ppo_epochs": 2,
        "algo.agg_mode": "seq_mean_token_mean",
        "algo.kl_coef": 0.01,
        "algo.dynamic_sampling": True,
        "algo.max_gen_batches": 4,
        "algo.filter_metric": "reward",  # the overlong shaping makes rewards vary: groups are kept
        "algo.positive_nll_coef": 0.1,
        "rollout.gen_batch_prompts": 8,
        "rollout.max_prompt_tokens": 64,
        "reward.overlong_buffer": 2,
        "optim.warmup_steps": 2,
        "loss.schedule": {"kind": "switch", "step": 1, "beta1": 0.0},
        "rollout.tis_cap": 2.0,  # the HF backend returns its sampling log-probs too
    }
    train(load_train_config("tiny", None, everything_on))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps({"q": f"{i}+1=", "a": str(i + 1)}) for i in range(20)))
    jsonl = {"task.source": "jsonl", "task.path": str(rows), "task.prompt_key": "q", "task.answer_key": "a"}
    train(
        load_train_config(
            "tiny",
            None,
            {
                **jsonl,
                "task.suffix": " ",
                "run.steps": 1,
                "run.output_dir": str(tmp_path / "b"),
                "run.tracking_uri": uri,
                "warmstart.steps": 0,
                # asynchronous rollouts (tis_cap is for staleness 0, so they take this run)
                "rollout.staleness": 1,
                "rollout.staleness_correction": "decoupled",
                "rollout.behaviour_cap": 3.0,
                "rollout.worker_threads": 1,
                "rollout.worker_device": "cpu",
            },
        )
    )
    # the mismatch corrections (rollout.tis_cap takes the first run), one step
    mismatch = {"rollout.mismatch": "sequence_mask", "rollout.mismatch_low": 0.5, "rollout.mismatch_high": 2.0}
    train(
        load_train_config(
            "tiny",
            None,
            {
                **mismatch,
                "run.steps": 1,
                "run.output_dir": str(tmp_path / "c"),
                "run.tracking_uri": uri,
                "warmstart.steps": 0,
                "rollout.prompts_per_step": 4,
                "rollout.group_size": 2,
                "algo.mini_batches": 2,
            },
        )
    )
    # The FSDP keys are read where the strategy is built (an FSDP run needs GPUs and vLLM).
    fsdp = {"run.strategy": "fsdp", "run.activation_checkpointing": True, "run.fsdp_sharding": "HYBRID_SHARD"}
    make_strategy(load_train_config("tiny", None, {**fsdp, "rollout.backend": "vllm"}), load_model("tiny")[0])
    with pytest.raises(ConfigError):  # offline: the hub dataset cannot load, but its split was read
        build_task(TaskConfig(source="hf", path="nobody/nothing", split="test"))
    evaluate_model(
        build_config(
            EvalConfig,
            {
                "suite": "arith_l1_compact",
                "k": 1,
                "limit": 2,
                "max_new_tokens": 4,
                "output_dir": str(tmp_path / "e"),
                "tracking_uri": uri,
                "data_dir": str(tmp_path),
            },
        )
    )

    train_keys = {key for key, _, _ in help_rows(TrainConfig)} - {"loss"}  # a dict, read by loss_and_schedule
    eval_keys = {f"eval.{key}" for key, _, _ in help_rows(EvalConfig)}
    unread = sorted((train_keys | eval_keys) - reads)
    assert not unread, f"config keys no code reads: {unread}"


@pytest.mark.parametrize("profile", PROFILES)
def test_every_key_of_every_profile_is_a_schema_key(profile):
    keys = set(flatten(load_yaml(PROFILES[profile].config_file)))
    schema = {key for key, _, _ in help_rows(TrainConfig)}
    loss_keys = {k for k in keys if k.startswith("loss.")}
    assert keys - loss_keys <= schema
    built = load_train_config(profile, None, {})
    assert {f"loss.{k}" for k in built.loss} >= loss_keys  # every loss key reaches the loss


def test_a_loss_registered_after_import_is_configured_and_scheduled():
    """The config asks the live registry (not a list frozen at import), and a schedule of a
    coefficient other than beta1 / beta2 reaches the loss at each step."""
    import dataclasses
    from types import SimpleNamespace
    from typing import ClassVar

    from algorithms.loss_registry import _REGISTRY, register_loss
    from harness.schema import loss_and_schedule
    from harness.training.rl_module import RLModule

    @register_loss("test_late_loss")
    @dataclasses.dataclass(frozen=True)
    class LateLoss:
        coef: float = 1.0
        default_agg: ClassVar[str] = "token_mean"
        schedulable: ClassVar[tuple[str, ...]] = ("coef",)

        def __call__(self, batch):
            raise NotImplementedError

    try:
        config = load_train_config(
            "tiny", None, {"loss": "test_late_loss", "loss.schedule": {"kind": "switch", "step": 2, "coef": 0.25}}
        )
        loss, schedule = loss_and_schedule(config.loss)
        module = SimpleNamespace(base_loss=loss, schedule=schedule)
        assert [RLModule.loss_at_step(module, step).coef for step in (0, 1, 2, 5)] == [1.0, 1.0, 0.25, 0.25]
    finally:
        del _REGISTRY["test_late_loss"]
