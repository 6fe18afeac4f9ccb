"""Shared fixtures: the offline benchmark data directory (shared/benchmarks) and its manifest."""

import json
import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """$HARNESS_BENCHMARK_DIR, else <repo>/../shared/benchmarks (always present on CI)."""
    fallback = Path(__file__).resolve().parents[2].parent / "shared" / "benchmarks"
    return Path(os.environ.get("HARNESS_BENCHMARK_DIR") or fallback)


@pytest.fixture(scope="session")
def manifest(data_dir: Path) -> dict:
    return json.loads((data_dir / "manifest.json").read_text())
