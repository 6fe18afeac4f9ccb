"""The numerical environment of a training run (harness.common.environment), from its config and policy.

Recorded when a new run starts, as the run's env.* MLflow tags, and again in summary.json["environment"]
at the end (where the policy then computes: Lightning moves it to its device during fit). What it names:

    device, device_model   run.accelerator (gpu: cuda, auto: cuda when there is one), the GPU's or CPU's name
    device_count           run.devices x run.num_nodes data-parallel ranks x rollout.tensor_parallel_size
    dtype                  the compute dtype: bfloat16 / float16 under a bf16 / 16 run.precision, else the weights'
    backend                the rollout engine (hf, vllm) and its version; tensor_parallel its TP size
    data_parallel          run.devices x run.num_nodes
    batch_size             rollout.batch_size (sequences generated at once per rank), and micro_batch_size the
                           trainer's algo.micro_batch_size (sequences per forward/backward)
"""

from __future__ import annotations

import torch

from harness.common.environment import describe_environment, model_attention

PRECISION_DTYPES = {"bf16": "bfloat16", "16": "float16"}  # run.precision prefix -> compute dtype


def training_environment(config, policy) -> dict[str, str]:
    """{key: text} of the run's numerical environment (see the module docstring)."""
    run, rollout = config.run, config.rollout
    parameter = next(policy.parameters())
    if parameter.device.type != "cpu":
        device = parameter.device
    elif run.accelerator == "gpu" or (run.accelerator == "auto" and torch.cuda.is_available()):
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    dtype = PRECISION_DTYPES.get(run.precision.split("-")[0], parameter.dtype)
    environment = describe_environment(
        device=device,
        dtype=dtype,
        backend=rollout.backend,
        batch_size=rollout.batch_size,
        tensor_parallel=rollout.tensor_parallel_size,
        data_parallel=run.devices * run.num_nodes,
        attention=model_attention(policy),
    )
    environment["micro_batch_size"] = str(config.algo.micro_batch_size)
    return environment
