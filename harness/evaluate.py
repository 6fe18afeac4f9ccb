"""`harness eval`: score a model on benchmark suites (or an lm-eval task) and track the result.

    harness eval --model tiny --suite math --k 2 --limit 5
    harness eval --model runs/tiny --suite arith_l2 --k 4 --temperature 1.0

Generation uses the Hugging Face backend with the paper's evaluation sampling by default
(temperature 0.6, top-p 0.95); `results.json` and `samples.jsonl` go to `--output-dir` and to
MLflow as artifacts, with every metric logged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from harness.config import ConfigError, param
from harness.models import load_model
from harness.rollout import HFGenerateBackend, SamplingParams
from harness.tasks import format_prompt


@dataclass(frozen=True)
class EvalConfig:
    model: str = "tiny"
    """Built-in model name, local model folder, training run directory, or hub id."""
    suite: str = "math"
    """Suite (math, code, if, all) or comma-separated benchmark names."""
    k: int = param(4, ge=1)
    """Samples per problem (avg@k and pass@k)."""
    limit: int | None = param(None, ge=1)
    """Evaluate only the first N problems of each benchmark."""
    max_new_tokens: int = param(1024, ge=1)
    """Longest completion (tokens)."""
    temperature: float = param(0.6, ge=0)
    """Sampling temperature (0: greedy)."""
    top_p: float = param(0.95, gt=0, le=1)
    """Nucleus sampling mass."""
    seed: int = 0
    """Sampling seed."""
    batch_size: int = param(64, ge=1)
    """Sequences per generate call."""
    output_dir: str = "runs/eval"
    """Where results.json and samples.jsonl are written."""
    data_dir: str | None = None
    """Benchmark data folder (default: $HARNESS_BENCHMARK_DIR, else the Hugging Face Hub)."""
    tracking_uri: str = "sqlite:///mlflow.db"
    """MLflow tracking URI ('none' to skip tracking)."""
    experiment: str = "ce-gppo-eval"
    """MLflow experiment name."""
    lm_eval: str | None = None
    """Run this lm-eval task (comma-separated) through lm-eval's own evaluator instead."""

    def __post_init__(self):
        if self.lm_eval is None:
            from benchmarks import resolve_suite

            try:
                resolve_suite(self.suite)
            except ValueError as err:
                raise ConfigError(f"--suite: {err}") from None


def make_sampler(model, tokenizer, *, max_new_tokens: int, temperature: float, top_p: float, batch_size: int = 64):
    """prompts (user messages) x n -> completions, with the given sampling (temperature 0: greedy)."""
    backend = HFGenerateBackend(model, tokenizer, batch_size)
    params = SamplingParams(max_new_tokens, max(temperature, 1e-5), top_p, greedy=temperature == 0)

    def sample(prompts: list[str], n: int) -> list[list[str]]:
        rollouts = backend.generate([format_prompt(tokenizer, p) for p in prompts], n, params)
        return [rollouts.texts[i * n : (i + 1) * n] for i in range(len(prompts))]

    return sample


def evaluate_model(config: EvalConfig) -> dict:
    from benchmarks import resolve_suite
    from benchmarks.runner import evaluate, log_to_mlflow

    output = Path(config.output_dir)
    model, tokenizer = load_model(config.model)
    model.eval()
    if config.lm_eval:
        from benchmarks.lm_eval_bridge import run_lm_eval

        return run_lm_eval(model, tokenizer, config.lm_eval.split(","), limit=config.limit)
    benchmarks = resolve_suite(config.suite)
    torch.manual_seed(config.seed)
    results = evaluate(
        benchmarks,
        make_sampler(
            model,
            tokenizer,
            max_new_tokens=config.max_new_tokens,
            temperature=config.temperature,
            top_p=config.top_p,
            batch_size=config.batch_size,
        ),
        k=config.k,
        limit=config.limit,
        seed=config.seed,
        output_dir=output,
        data_dir=config.data_dir,
    )
    if config.tracking_uri != "none":
        import mlflow

        from harness.tracking import artifact_root

        mlflow.set_tracking_uri(config.tracking_uri)
        if mlflow.get_experiment_by_name(config.experiment) is None:
            mlflow.create_experiment(config.experiment, artifact_location=artifact_root(config.tracking_uri))
        mlflow.set_experiment(config.experiment)
        with mlflow.start_run(run_name=f"eval-{Path(config.model).name}-{config.suite}") as run:
            mlflow.log_params(asdict(config))
            log_to_mlflow(results, output)
            results["mlflow_run_id"] = run.info.run_id
    return results
