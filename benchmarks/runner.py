"""The evaluation runner: sample k completions per problem, grade them, write and log results.

    results = evaluate(resolve_suite("math"), sampler, k=4, limit=None, seed=0, output_dir=Path("runs/eval"))
    log_to_mlflow(results, Path("runs/eval"))   # inside an active MLflow run

`sampler(prompts, n)` is supplied by the harness: it applies the chat template to each
user-message prompt and returns n completions per prompt (temperature, top-p and the token
budget are bound inside it). Writes into output_dir:

- results.json: per benchmark and metric avg@k, its standard error, pass@j (primary metric,
  j = 1, 2, 4 ... k) and higher_is_better; the suite average of the primary avg@k; settings;
  timing (sampling and grading seconds, grading's share of wall time).
- samples.jsonl: one line per completion: benchmark, id, sample, prompt, completion, extracted
  answer, reference, correct (primary metric > 0.5 — pass/fail for binary metrics), scores.
"""

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from benchmarks.benchmark import Benchmark
from benchmarks.metrics import avg_at_k, mean_pass_at_k, pass_k_values, suite_average

Sampler = Callable[[list[str], int], list[list[str]]]


def _sample(sampler: Sampler, prompts: list[str], k: int, chunk_size: int, advance) -> list[list[str]]:
    completions: list[list[str]] = []
    for start in range(0, len(prompts), chunk_size):
        chunk = prompts[start : start + chunk_size]
        answers = sampler(chunk, k)
        if len(answers) != len(chunk) or any(len(a) != k for a in answers):
            raise ValueError(f"the sampler must return {k} completions for each of {len(chunk)} prompts")
        completions += answers
        advance(len(chunk))
    return completions


def _grade(benchmark: Benchmark, rows: list[dict], completions: list[list[str]], advance) -> list[list[tuple]]:
    """judge() results as graded[problem][sample] = (scores, extracted)."""
    jobs = [(row, completion) for row, samples in zip(rows, completions) for completion in samples]
    if benchmark.grade_in_threads:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            flat = list(pool.map(lambda job: benchmark.judge(*job), jobs))
        advance(len(jobs))
    else:
        flat = []
        for job in jobs:
            flat.append(benchmark.judge(*job))
            advance(1)
    k = len(completions[0]) if completions else 0
    return [flat[i : i + k] for i in range(0, len(flat), k)]


def _summarise(benchmark: Benchmark, rows: list[dict], graded: list[list[tuple]], k: int) -> dict:
    metrics = {}
    for metric in benchmark.metrics:
        scores = [[scores[metric.name] for scores, _ in samples] for samples in graded]
        weights = [metric.weight(row) for row in rows] if metric.weight else None
        mean, stderr = avg_at_k(scores, weights)
        summary = {f"avg@{k}": mean, "stderr": stderr, "higher_is_better": metric.higher_is_better}
        binary = all(s in (0.0, 1.0) for problem in scores for s in problem)
        if metric is benchmark.primary_metric and binary:
            for j in pass_k_values(k):
                summary[f"pass@{j}"] = mean_pass_at_k([[s == 1.0 for s in p] for p in scores], j)[0]
        metrics[metric.name] = summary
    return {
        "source": benchmark.source,
        "version": benchmark.version,
        "num_problems": len(rows),
        "num_samples": len(rows) * k,
        "primary_metric": benchmark.primary_metric.name,
        "metrics": metrics,
    }


def _sample_lines(benchmark: Benchmark, rows, prompts, completions, graded) -> list[str]:
    primary = benchmark.primary_metric.name
    lines = []
    for row, prompt, samples, judged in zip(rows, prompts, completions, graded):
        row_id = row.get("id", row.get("task_id", row.get("key", row.get("question_id"))))
        for index, (completion, (scores, extracted)) in enumerate(zip(samples, judged)):
            record = {
                "benchmark": benchmark.name,
                "id": row_id,
                "sample": index,
                "prompt": prompt,
                "completion": completion,
                "extracted": extracted,
                "reference": benchmark.reference(row),
                "correct": scores[primary] > 0.5,
                "scores": scores,
            }
            lines.append(json.dumps(record, ensure_ascii=False))
    return lines


def evaluate(
    benchmarks: list[Benchmark],
    sampler: Sampler,
    *,
    k: int,
    limit: int | None,
    seed: int,
    output_dir: Path,
    data_dir: str | Path | None = None,
    progress: bool = True,
    chunk_size: int = 64,
) -> dict:
    """Run `benchmarks` with `sampler`; write results.json and samples.jsonl; return the results.

    `limit` keeps the first rows of each benchmark; `seed` picks the problems of generated
    (arithmetic) benchmarks and is recorded; `chunk_size` prompts go to the sampler at once."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    results: dict = {"benchmarks": {}}
    sampling_total = grading_total = 0.0
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with (
        Progress(*columns, disable=not progress) as bar,
        open(output_dir / "samples.jsonl", "w") as samples_file,
    ):
        for benchmark in benchmarks:
            rows = benchmark.load(data_dir, limit, seed)
            prompts = [benchmark.prompt(row) for row in rows]
            task = bar.add_task(f"{benchmark.name}: sampling", total=len(rows))
            tick = time.monotonic()
            completions = _sample(sampler, prompts, k, chunk_size, lambda n, t=task: bar.advance(t, n))
            sampling_s, tick = time.monotonic() - tick, time.monotonic()
            bar.update(task, description=f"{benchmark.name}: grading", completed=0, total=len(rows) * k)
            graded = _grade(benchmark, rows, completions, lambda n, t=task: bar.advance(t, n))
            grading_s = time.monotonic() - tick
            summary = _summarise(benchmark, rows, graded, k)
            summary["timing"] = {"sampling_s": sampling_s, "grading_s": grading_s}
            results["benchmarks"][benchmark.name] = summary
            samples_file.write(
                "".join(line + "\n" for line in _sample_lines(benchmark, rows, prompts, completions, graded))
            )
            sampling_total += sampling_s
            grading_total += grading_s
    primary = [summary["metrics"][summary["primary_metric"]][f"avg@{k}"] for summary in results["benchmarks"].values()]
    wall_s = time.monotonic() - started
    results["suite"] = {
        "avg": suite_average(primary) if primary else None,
        "metric": f"avg@{k}",
        "benchmarks": [b.name for b in benchmarks],
    }
    results["settings"] = {
        "k": k,
        "limit": limit,
        "seed": seed,
        "data_dir": str(data_dir) if data_dir else os.environ.get("HARNESS_BENCHMARK_DIR"),
    }
    results["timing"] = {
        "wall_s": wall_s,
        "sampling_s": sampling_total,
        "grading_s": grading_total,
        "grading_share": grading_total / wall_s if wall_s else 0.0,
    }
    (output_dir / "results.json").write_text(json.dumps(results, indent=2))
    return results


def mlflow_metrics(results: dict) -> dict[str, float]:
    """Flat MLflow metric names: eval/<benchmark>/<metric>/avg_at_4, .../pass_at_1, eval/suite_avg."""
    flat = {}
    for name, summary in results["benchmarks"].items():
        for metric, values in summary["metrics"].items():
            for key, value in values.items():
                if key != "higher_is_better":
                    flat[f"eval/{name}/{metric}/{key.replace('@', '_at_')}"] = float(value)
    if results["suite"]["avg"] is not None:
        flat["eval/suite_avg"] = float(results["suite"]["avg"])
    for key in ("grading_s", "grading_share", "wall_s"):
        flat[f"eval/timing/{key}"] = float(results["timing"][key])
    return flat


def log_to_mlflow(results: dict, output_dir: Path, step: int | None = None, artifact_path: str = "eval") -> None:
    """Log the metrics (one batch) and results.json / samples.jsonl to the active MLflow run."""
    import mlflow

    if mlflow.active_run() is None:
        raise RuntimeError("log_to_mlflow needs an active MLflow run (call it inside mlflow.start_run())")
    mlflow.log_metrics(mlflow_metrics(results), step=step)
    for name in ("results.json", "samples.jsonl"):
        mlflow.log_artifact(str(Path(output_dir) / name), artifact_path=artifact_path)
