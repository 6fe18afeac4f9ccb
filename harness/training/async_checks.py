"""What the asynchronous rollout worker needs from the machine, checked before any work is done.

    check_worker_settings(config)          # at start-up, with the other layout checks of `harness train`
    check_shared_memory(state)             # before the weight buffer is copied into shared memory

A worker (harness.training.async_rollout) runs on `rollout.worker_device` with
`rollout.worker_threads` torch threads and reads the policy's weights from a buffer in shared
memory (/dev/shm on Linux). Each of these used to fail late: a device torch cannot parse, a CUDA
index that does not exist or the `meta` device failed inside the spawned worker after the MLflow run
was created and the model loaded; 100,000 threads ran out of memory in the worker; a /dev/shm smaller
than the weights (a container's default is 64 MB) failed with a traceback from `share_memory_()`.
Each now fails as one line naming the key (or /dev/shm) and what is allowed.
"""

from __future__ import annotations

import os

import torch

from harness.common.errors import ConfigError

SHARED_MEMORY = "/dev/shm"
THREADS_PER_CORE = 4  # the bound sweeps use for their workers: more threads only compete for the cores


def cpu_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def check_worker_settings(config) -> None:
    """rollout.worker_threads within THREADS_PER_CORE x the cores, and rollout.worker_device a device this
    machine has (the default, null, is resolved per rank: cpu, or the GPU after the ranks' own)."""
    rollout = config.rollout
    if not rollout.staleness:
        return
    cores = cpu_cores()
    if rollout.worker_threads > THREADS_PER_CORE * cores:
        raise ConfigError(
            f"rollout.worker_threads={rollout.worker_threads} is more than {THREADS_PER_CORE} per CPU core on this "
            f"{cores}-core machine; allowed: 1 .. {THREADS_PER_CORE * cores}"
        )
    if rollout.worker_device:
        check_device("rollout.worker_device", rollout.worker_device)


def check_device(key: str, text: str) -> None:
    """`text` names a device torch knows, that holds real memory (not meta) and that exists here."""
    try:
        device = torch.device(text)
    except (RuntimeError, TypeError, ValueError):
        raise ConfigError(f"{key}={text!r} is not a device; allowed: cpu, cuda or cuda:N") from None
    if device.type == "cpu":
        return
    if device.type != "cuda":
        raise ConfigError(f"{key}={text!r}: the rollout worker generates on cpu or cuda[:N], not {device.type}")
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        raise ConfigError(f"{key}={text!r}: this machine has no CUDA device (torch sees none); use cpu")
    if device.index is not None and device.index >= count:
        raise ConfigError(f"{key}={text!r}: this machine has {count} CUDA device(s), cuda:0 .. cuda:{count - 1}")


def shared_memory_free() -> int | None:
    """Free bytes in /dev/shm, or None where there is no such folder (the check is then left to the OS)."""
    try:
        stats = os.statvfs(SHARED_MEMORY)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


def check_shared_memory(state: dict[str, torch.Tensor]) -> None:
    """The weight buffer (every distinct tensor of `state`, tied weights once) must fit in /dev/shm's free space."""
    storages = {tensor.data_ptr(): tensor.numel() * tensor.element_size() for tensor in state.values()}
    needed = sum(storages.values())
    free = shared_memory_free()
    if free is not None and needed > free:
        raise ConfigError(
            f"{SHARED_MEMORY} has {free:,} bytes free but the rollout worker's weight buffer needs {needed:,}: "
            f"enlarge {SHARED_MEMORY} (docker run --shm-size) or train with rollout.staleness 0"
        )
