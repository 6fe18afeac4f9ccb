"""The numerical environment of a run, recorded beside every score: hardware, precision, parallelism, versions.

    env = describe_environment(device=model.device, dtype=model.dtype, backend="hf", batch_size=64)
    mlflow.set_tags(environment_tags(env))      # env.device_model = "NVIDIA H200", env.dtype = "bfloat16", ...
    results["environment"] = env                 # results.json (harness eval)
    environment_from_tags(run.data.tags)         # the same dict back from an MLflow run's tags
    environment_differences({"ce_gppo": env_a, "grpo": env_b})   # {"dtype": {"bfloat16": ["ce_gppo"], ...}}
    describe_differences({"ce_gppo": env_a, "grpo": env_b})      # one line for a report, or None

Why: the same weights score differently on different hardware, precision and parallel layouts (bf16
kernels and reduction orders differ between GPU models, tensor-parallel sizes and batch sizes, and a
greedy decode that flips one token diverges from there). Hochlehnert et al. 2025 ("A Sober Look at
Progress in Language Model Reasoning", arXiv 2504.07086) find math benchmarks sensitive to hardware and
software configuration; issue 31 cites moves of up to 8-9 AIME points. A score without its environment
cannot be compared with another one.

What is recorded (every value a string, so that tags, JSON and comparisons agree):

| key | what |
|---|---|
| device | "cuda", "cpu" or "mps": where the numbers are computed |
| device_model | the GPU's name (torch.cuda.get_device_name), else the CPU's model name |
| device_count | accelerators the run uses (tensor_parallel x data_parallel); "1" on the CPU |
| cpu_threads | torch's intra-op threads, on the CPU only (they change the order of sums) |
| dtype | the compute dtype ("bfloat16", "float32") |
| attention | the model's attention implementation ("sdpa", "eager", "flash_attention_2"), when known |
| backend, backend_version | the generation engine ("hf": transformers, "vllm": vLLM) and its version |
| tensor_parallel, data_parallel | the parallel sizes |
| batch_size | sequences per generate call (hf) or in flight (vllm); for training, what the caller names |
| torch, transformers, vllm | library versions ("none" when not installed) |
| cuda | the CUDA version torch was built with ("none" for a CPU build) |
| python | the interpreter's version |

Versions come from the installed distributions (importlib.metadata), so vLLM is never imported here;
torch is imported inside the functions, so that importing this module costs nothing (harness.common
imports nothing of the project, see docs/design.md).
"""

from __future__ import annotations

import importlib.metadata
import platform
from collections.abc import Mapping

TAG_PREFIX = "env."
NOT_APPLICABLE = "n/a"  # a key another run's environment has and this one's lacks (cpu_threads on a GPU)
BACKEND_PACKAGES = {"hf": "transformers", "vllm": "vllm"}  # backend name -> the distribution it runs on


def package_version(name: str) -> str:
    """The installed version of distribution `name`, or "none"."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "none"


def _cpu_model() -> str:
    """The CPU's marketing name (Linux: /proc/cpuinfo), else what `platform` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown cpu"


def _device_model(device) -> str:
    import torch

    if device.type == "cuda" and torch.cuda.is_available():
        return torch.cuda.get_device_name(device.index if device.index is not None else torch.cuda.current_device())
    if device.type == "mps":
        return f"Apple {platform.machine()} (mps)"
    return _cpu_model()


def describe_environment(
    *,
    device,
    dtype,
    backend: str,
    batch_size: int,
    tensor_parallel: int = 1,
    data_parallel: int = 1,
    attention: str | None = None,
) -> dict[str, str]:
    """The numerical environment as {key: text} (the table of the module docstring).

    `device` is a torch.device or its name ("cuda:0", "cpu"), `dtype` a torch.dtype or its name;
    `backend` a rollout backend name (its version is that of BACKEND_PACKAGES[backend], else of the
    distribution of that name)."""
    import torch

    device = torch.device(device)
    on_cpu = device.type == "cpu"
    environment = {
        "device": device.type,
        "device_model": _device_model(device),
        "device_count": "1" if on_cpu else str(tensor_parallel * data_parallel),
    }
    if on_cpu:
        environment["cpu_threads"] = str(torch.get_num_threads())
    environment["dtype"] = str(dtype).removeprefix("torch.")
    if attention:
        environment["attention"] = str(attention)
    environment |= {
        "backend": backend,
        "backend_version": package_version(BACKEND_PACKAGES.get(backend, backend)),
        "tensor_parallel": str(tensor_parallel),
        "data_parallel": str(data_parallel),
        "batch_size": str(batch_size),
        "torch": torch.__version__,
        "transformers": package_version("transformers"),
        "vllm": package_version("vllm"),
        "cuda": torch.version.cuda or "none",
        "python": platform.python_version(),
    }
    return environment


def model_attention(model) -> str | None:
    """The attention implementation a transformers model runs with ("sdpa", "eager", ...), if it says."""
    config = getattr(model, "config", None)
    return getattr(config, "_attn_implementation", None)


def environment_summary(environment: Mapping[str, str]) -> str:
    """One short line for a terminal: "cuda NVIDIA H200 x1, bfloat16, vllm 0.11.0, tp 1 dp 1, batch 64"."""
    get = environment.get
    return (
        f"{get('device')} {get('device_model')} x{get('device_count')}, {get('dtype')}, "
        f"{get('backend')} {get('backend_version')}, tp {get('tensor_parallel')} dp {get('data_parallel')}, "
        f"batch {get('batch_size')}"
    )


def environment_tags(environment: Mapping[str, str]) -> dict[str, str]:
    """MLflow tags of an environment: env.<key> = value."""
    return {TAG_PREFIX + key: str(value) for key, value in environment.items()}


def environment_from_tags(tags: Mapping[str, str]) -> dict[str, str]:
    """The environment recorded in an MLflow run's tags ({} for a run that has none)."""
    return {key.removeprefix(TAG_PREFIX): value for key, value in tags.items() if key.startswith(TAG_PREFIX)}


def environment_differences(environments: Mapping[str, Mapping[str, str] | None]) -> dict[str, dict[str, list[str]]]:
    """{key: {value: [run labels]}} for every key on which the recorded environments disagree.

    Runs without a recorded environment ({} or None: an older harness) are left out here (see
    `describe_differences`, which names them); a key that a recorded environment lacks (cpu_threads on
    a GPU) reads NOT_APPLICABLE there, so that a comparison never passes for a match by silence. Keys
    keep the order they first appear in; values the order of the labels."""
    recorded = {label: env for label, env in environments.items() if env}
    keys = list(dict.fromkeys(key for env in recorded.values() for key in env))
    differences: dict[str, dict[str, list[str]]] = {}
    for key in keys:
        values: dict[str, list[str]] = {}
        for label, env in recorded.items():
            values.setdefault(str(env.get(key, NOT_APPLICABLE)), []).append(label)
        if len(values) > 1:
            differences[key] = values
    return differences


def describe_differences(environments: Mapping[str, Mapping[str, str] | None]) -> str | None:
    """One line saying how the labelled runs' environments differ, or None when they agree (or none of
    them recorded one: nothing to compare).

    "rows ran in different environments: device_model NVIDIA H200 (ce_gppo, grpo) / NVIDIA A100 (dapo);
    dtype bfloat16 (ce_gppo, grpo) / float32 (dapo); not recorded for sft_baseline"."""
    parts = [
        f"{key} " + " / ".join(f"{value} ({', '.join(labels)})" for value, labels in values.items())
        for key, values in environment_differences(environments).items()
    ]
    missing = [label for label, env in environments.items() if not env]
    if missing and len(missing) < len(environments):
        parts.append(f"not recorded for {', '.join(missing)}")
    return "rows ran in different environments: " + "; ".join(parts) if parts else None
