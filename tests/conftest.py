"""Test-session environment: offline Hub, project-local caches, the shared benchmark data."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HARNESS_CACHE", str(ROOT / ".cache"))
os.environ.setdefault("HARNESS_BENCHMARK_DIR", str(ROOT.parent / "shared" / "benchmarks"))
