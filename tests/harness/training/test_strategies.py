"""Scale-out configuration: the README's multi-GPU and multi-node recipes validate, Lightning's
strategies are built from the config, and a batch layout that cannot work is a one-line error.
No GPU needed: the strategies are built, not launched (the models are on the meta device)."""

import re
import shlex
from pathlib import Path

import pytest
import torch
from lightning.pytorch.strategies import DDPStrategy, FSDPStrategy
from transformers import LlamaConfig, LlamaForCausalLM

import harness.training.train
from harness.cli import main
from harness.common.errors import ConfigError
from harness.schema import load_train_config
from harness.training.train import check_parallel_layout, make_strategy

README = Path(__file__).resolve().parents[3] / "README.md"


def meta_llama():
    with torch.device("meta"):
        return LlamaForCausalLM(LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=3))


def readme_recipes() -> list[list[str]]:
    """The `train` arguments of every training command in the README's scale-out section."""
    section = README.read_text().split("## vLLM rollouts and scale-out")[1].split("\n## ")[0]
    commands = []
    for line in section.replace("\\\n", " ").splitlines():
        if " train --profile paper" in line:
            commands.append(shlex.split(line.split(" train ", 1)[1]))
    return commands


def parsed(argv: list[str], monkeypatch):
    """The TrainConfig `harness train ARGV` would run (nothing is trained)."""
    seen = []
    monkeypatch.setattr(harness.training.train, "train", lambda config, resume=False: seen.append(config))
    assert main(["train", *argv]) == 0
    return seen[0]


def test_the_readme_has_single_node_torchrun_and_slurm_recipes():
    text = README.read_text()
    assert "torchrun --nnodes 2" in text and "#SBATCH --nodes=2" in text and "srun " in text
    assert len(readme_recipes()) == 4


@pytest.mark.parametrize("argv", readme_recipes(), ids=lambda argv: " ".join(argv[-2:]))
def test_readme_recipes_validate_and_build_fsdp(argv, monkeypatch):
    config = parsed(argv, monkeypatch)
    check_parallel_layout(config)
    run = config.run
    ranks = run.devices * run.num_nodes
    assert config.rollout.prompts_per_step // ranks == 16  # every recipe keeps 16 prompts per rank
    strategy = make_strategy(config, meta_llama())
    assert isinstance(strategy, FSDPStrategy)
    assert strategy.sharding_strategy.name == run.fsdp_sharding
    assert strategy.kwargs["auto_wrap_policy"] is not None
    if run.fsdp_sharding == "HYBRID_SHARD":
        assert strategy.kwargs["device_mesh"] == (run.num_nodes, run.devices)


def test_strategies_from_the_config():
    assert make_strategy(load_train_config("tiny")) == "auto"
    ddp = make_strategy(load_train_config("tiny", None, {"run.devices": 2}))
    assert isinstance(ddp, DDPStrategy) and ddp._process_group_backend == "gloo"
    gpu = make_strategy(load_train_config("tiny", None, {"run.strategy": "ddp", "run.accelerator": "gpu"}))
    assert isinstance(gpu, DDPStrategy) and gpu._process_group_backend == "nccl"
    config = load_train_config("paper", None, {"run.activation_checkpointing": False})
    assert make_strategy(config, meta_llama())._activation_checkpointing_kwargs == {}
    assert make_strategy(load_train_config("paper"), meta_llama())._activation_checkpointing_kwargs


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"run.devices": 3}, "rollout.prompts_per_step=64 is not divisible by the 3 data-parallel ranks"),
        ({"run.devices": 2, "run.num_nodes": 3}, "not divisible by the 6 data-parallel ranks (run.devices=2 x"),
        ({"rollout.prompts_per_step": 2, "run.devices": 2, "rollout.group_size": 2}, "algo.mini_batches=8 exceeds"),
        ({"run.strategy": "fsdp"}, "run.strategy=fsdp needs rollout.backend=vllm"),
    ],
)
def test_impossible_layouts_are_one_line_errors(overrides, message):
    with pytest.raises(ConfigError) as info:
        check_parallel_layout(load_train_config("tiny", None, overrides))
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"run.activation_checkpointing": True}, "run.activation_checkpointing=True applies to run.strategy=fsdp"),
        ({"run.fsdp_sharding": "HYBRID_SHARD", "run.strategy": "ddp"}, "'HYBRID_SHARD' applies to run.strategy=fsdp"),
        ({"rollout.tensor_parallel_size": 2}, "rollout.tensor_parallel_size=2 applies to rollout.backend=vllm"),
    ],
)
def test_engine_options_of_another_layout_are_refused_when_the_config_is_built(overrides, message):
    """They declare where they apply (harness.config_fields.Applies); the config refuses them in one line."""
    with pytest.raises(ConfigError) as info:
        load_train_config("tiny", None, overrides)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_fsdp_needs_a_model_that_names_its_layers():
    with pytest.raises(ConfigError, match=re.escape("names no decoder layer class")):
        make_strategy(load_train_config("paper"), torch.nn.Linear(2, 2))
