"""The numerical environment: what is recorded on this CPU machine, tags both ways, and how runs are told apart."""

import platform

import pytest
import torch
import transformers

from harness.common.environment import (
    describe_differences,
    describe_environment,
    environment_differences,
    environment_from_tags,
    environment_summary,
    environment_tags,
    package_version,
)


def test_a_cpu_environment_records_hardware_precision_parallelism_and_versions():
    env = describe_environment(device="cpu", dtype=torch.bfloat16, backend="hf", batch_size=8, attention="sdpa")
    assert env["device"] == "cpu" and env["device_count"] == "1"
    assert env["cpu_threads"] == str(torch.get_num_threads())
    assert env["device_model"] and env["device_model"] != "cpu"  # the processor's name
    assert env["dtype"] == "bfloat16" and env["attention"] == "sdpa" and env["batch_size"] == "8"
    assert env["backend"] == "hf" and env["backend_version"] == transformers.__version__
    assert (env["tensor_parallel"], env["data_parallel"]) == ("1", "1")
    assert env["torch"] == torch.__version__ and env["transformers"] == transformers.__version__
    assert env["vllm"] == package_version("vllm") and env["python"] == platform.python_version()
    assert env["cuda"] == (torch.version.cuda or "none")
    assert all(isinstance(value, str) for value in env.values())


def test_the_backend_version_is_the_engines_own_and_an_absent_one_reads_none():
    env = describe_environment(device="cpu", dtype="float32", backend="vllm", batch_size=256, tensor_parallel=2)
    assert env["backend_version"] == package_version("vllm") and env["tensor_parallel"] == "2"
    assert "attention" not in env and env["dtype"] == "float32"
    assert package_version("no-such-distribution-xyz") == "none"


def test_a_gpu_environment_names_the_card_and_counts_the_devices_used(monkeypatch):
    """This machine has no GPU: torch.cuda answers as on a node of H200s (the CUDA branch's logic only)."""
    asked = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index: asked.append(index) or "NVIDIA H200")
    env = describe_environment(
        device="cuda:3", dtype=torch.bfloat16, backend="vllm", batch_size=256, tensor_parallel=2, data_parallel=4
    )
    assert (env["device"], env["device_model"], env["device_count"]) == ("cuda", "NVIDIA H200", "8")
    assert asked == [3] and "cpu_threads" not in env and env["dtype"] == "bfloat16"


def test_tags_go_both_ways_and_ignore_other_tags():
    env = {"device": "cuda", "dtype": "bfloat16"}
    tags = environment_tags(env)
    assert tags == {"env.device": "cuda", "env.dtype": "bfloat16"}
    assert environment_from_tags({**tags, "harness.train_run_id": "abc", "mlflow.runName": "x"}) == env
    assert environment_summary(
        {
            "device": "cuda",
            "device_model": "NVIDIA H200",
            "device_count": "2",
            "dtype": "bfloat16",
            "backend": "vllm",
            "backend_version": "0.11.0",
            "tensor_parallel": "2",
            "data_parallel": "1",
            "batch_size": "256",
        }
    ) == ("cuda NVIDIA H200 x2, bfloat16, vllm 0.11.0, tp 2 dp 1, batch 256")


H200 = {"device": "cuda", "device_model": "NVIDIA H200", "dtype": "bfloat16", "tensor_parallel": "1"}


def test_runs_in_one_environment_do_not_differ():
    assert environment_differences({"grpo": H200, "ce_gppo": dict(H200)}) == {}
    assert describe_differences({"grpo": H200, "ce_gppo": dict(H200)}) is None
    assert describe_differences({"grpo": None, "ce_gppo": {}}) is None  # nothing recorded: nothing to compare


def test_differences_name_each_key_value_and_run():
    a100 = {**H200, "device_model": "NVIDIA A100-SXM4-80GB", "tensor_parallel": "2"}
    cpu = {"device": "cpu", "device_model": "AMD EPYC", "cpu_threads": "16", "dtype": "float32", "tensor_parallel": "1"}
    differences = environment_differences({"grpo": H200, "ce_gppo": H200, "dapo": a100, "tiny": cpu})
    assert differences == {
        "device": {"cuda": ["grpo", "ce_gppo", "dapo"], "cpu": ["tiny"]},
        "device_model": {"NVIDIA H200": ["grpo", "ce_gppo"], "NVIDIA A100-SXM4-80GB": ["dapo"], "AMD EPYC": ["tiny"]},
        "dtype": {"bfloat16": ["grpo", "ce_gppo", "dapo"], "float32": ["tiny"]},
        "tensor_parallel": {"1": ["grpo", "ce_gppo", "tiny"], "2": ["dapo"]},
        "cpu_threads": {"n/a": ["grpo", "ce_gppo", "dapo"], "16": ["tiny"]},
    }
    assert describe_differences({"grpo": H200, "dapo": a100, "old": None}) == (
        "rows ran in different environments: device_model NVIDIA H200 (grpo) / NVIDIA A100-SXM4-80GB (dapo); "
        "tensor_parallel 1 (grpo) / 2 (dapo); not recorded for old"
    )


@pytest.mark.parametrize("unrecorded", [None, {}])
def test_a_run_without_an_environment_is_named_never_taken_for_a_match(unrecorded):
    assert describe_differences({"grpo": H200, "old": unrecorded}) == (
        "rows ran in different environments: not recorded for old"
    )
