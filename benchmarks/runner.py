"""The evaluation runner: sample k completions per problem, grade them, write and log results.

    results = evaluate(resolve_suite("math"), sampler, k=4, limit=None, seed=0, output_dir=Path("runs/eval"))
    log_to_mlflow(results, Path("runs/eval"))   # benchmarks.eval_logging, inside an active MLflow run

`sampler(prompts, n)` is supplied by the harness: it applies the chat template to each
user-message prompt and returns n completions per prompt (temperature, top-p and the token
budget are bound inside it). `prompt_fits(prompt)`, also the harness's, says whether a prompt
leaves room for the completion in the model's context; a row whose prompt does not fit is not
sampled: its k samples score 0 on every metric (they count as failures in avg@k and pass@k)
and are marked ``"skipped"`` in samples.jsonl, and the benchmark's ``num_skipped`` counts them.

Writes into output_dir, only once every benchmark was sampled and graded (each file goes to a
temporary sibling renamed into place, so a failed or interrupted run leaves the previous
results.json and samples.jsonl as they were):

- results.json: per benchmark and metric avg@k, its standard error and higher_is_better; for a
  pass/fail primary metric pass@j and pass^j (j = 1, 2, 4 ... k) and, where the benchmark can
  compare answers (`Benchmark.same_answer`: math), maj@k (benchmarks.eval_metrics);
  num_problems, num_samples, num_skipped; the suite average of the primary avg@k, and
  `avg_strict` beside it (each benchmark's <primary>_strict avg@k where it has one, else its
  primary: only math is graded in two modes); settings; timing (sampling and grading seconds,
  grading's share of wall time); `environment`, the numerical environment the caller passes
  (harness.common.environment: device, dtype, backend, parallel sizes, library versions).
Before any sampling (after every benchmark's rows loaded) two limits are checked, each refused in
one line: a benchmark may not ask for more than MAX_SAMPLES samples (k x problems: its
completions, grades and samples.jsonl lines are held in memory together), and the disk must hold
at least what samples.jsonl will certainly take (every sample's prompt and fields, completions
not counted), so that a nearly full disk is found before the generation, not after it. A write
that fails all the same (ENOSPC) raises an OSError naming the file; the previous files stay.

- samples.jsonl: one line per completion: benchmark, id, sample, prompt, completion, extracted
  answer, reference, correct (primary metric > 0.5 — pass/fail for binary metrics), scores;
  correct_strict beside correct for benchmarks graded in both of the math grader's modes (a metric
  named <primary>_strict: `acc` lenient, the headline, and `acc_strict`);
  extraction_rule and graded_text: how a math answer was found ("boxed", "statement" or "whole",
  see benchmarks.grading.math_answer) and the exact parts of the completion it was read from (every box of
  an answer split over several); null when there is no answer or the grader is not a math one;
  answer_class, the sample's vote for maj@k (benchmarks.answer_classes: samples of one problem with
  the same class gave the same answer; null: no answer), for benchmarks that compare answers.
  Skipped rows have completion null and a "skipped" reason instead.
"""

import errno
import json
import os
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from benchmarks.answer_classes import answer_classes
from benchmarks.benchmark import Benchmark, row_id
from benchmarks.eval_metrics import (
    avg_at_k,
    majority_correct,
    mean_pass_at_k,
    mean_pass_hat_k,
    pass_k_values,
    suite_average,
)
from harness.common.errors import ConfigError
from harness.common.files import atomic_file, atomic_write_text, naming, remove_stale_temporaries

Sampler = Callable[[list[str], int], list[list[str]]]
SKIPPED = "prompt longer than the model's context"
MAX_SAMPLES = 1 << 17  # samples of one benchmark (k x problems); the paper's largest: 880 x 64 = 56,320
LINE_FIELDS_BYTES = 100  # a samples.jsonl line beyond its prompt and completion: at least this many bytes


def _check_capacity(benchmarks: list[Benchmark], prompts: list[list[str]], k: int, output_dir: Path) -> None:
    """Refuse, before any sampling, a benchmark of more than MAX_SAMPLES samples, and a disk with
    less free space than samples.jsonl will certainly take (see the module docstring)."""
    for benchmark, texts in zip(benchmarks, prompts):
        if k * len(texts) > MAX_SAMPLES:
            raise ConfigError(
                f"k={k} x {len(texts)} problems of {benchmark.name} = {k * len(texts):,} samples, more than the "
                f"{MAX_SAMPLES:,} one benchmark may hold; lower --k or --limit"
            )
    needed = k * sum(len(text.encode("utf-8", "replace")) + LINE_FIELDS_BYTES for texts in prompts for text in texts)
    free = shutil.disk_usage(output_dir).free
    if free < needed:
        raise OSError(
            errno.ENOSPC,
            f"No space left on device: the samples need more than {needed / 1e6:.1f} MB and {free / 1e6:.1f} MB "
            "are free; nothing was generated",
            str(output_dir / "samples.jsonl"),
        )


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


def _grade(benchmark: Benchmark, rows: list[dict], completions: list[list[str]], k: int, advance) -> list[list]:
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
    return [flat[i : i + k] for i in range(0, len(flat), k)]


def _vote_classes(benchmark: Benchmark, graded: list[list[tuple]]) -> list[list[int | None]] | None:
    """Each sample's answer class (`benchmarks.answer_classes`), per problem; None for benchmarks without
    comparable answers (no `same_answer`)."""
    if benchmark.same_answer is None:
        return None
    primary = benchmark.primary_metric.name
    return [
        answer_classes([answer for _, answer in samples], [s[primary] > 0.5 for s, _ in samples], benchmark.same_answer)
        for samples in graded
    ]


def _summarise(
    benchmark: Benchmark, rows: list[dict], graded: list[list[tuple]], k: int, skipped: int, classes
) -> dict:
    metrics = {}
    for metric in benchmark.metrics:
        scores = [[scores[metric.name] for scores, _ in samples] for samples in graded]
        weights = [metric.weight(row) for row in rows] if metric.weight else None
        mean, stderr = avg_at_k(scores, weights)
        summary = {f"avg@{k}": mean, "stderr": stderr, "higher_is_better": metric.higher_is_better}
        binary = all(s in (0.0, 1.0) for problem in scores for s in problem)
        if metric is benchmark.primary_metric and binary:
            correct = [[s == 1.0 for s in p] for p in scores]
            for j in pass_k_values(k):
                summary[f"pass@{j}"] = mean_pass_at_k(correct, j)[0]
            for j in pass_k_values(k):
                summary[f"pass^{j}"] = mean_pass_hat_k(correct, j)[0]
            if classes is not None:
                votes = [majority_correct(votes, right) for votes, right in zip(classes, correct)]
                summary[f"maj@{k}"] = sum(votes) / len(votes)
        metrics[metric.name] = summary
    return {
        "source": benchmark.source,
        "version": benchmark.version,
        "num_problems": len(rows),
        "num_samples": len(rows) * k,
        "num_skipped": skipped,
        "primary_metric": benchmark.primary_metric.name,
        "metrics": metrics,
    }


def _sample_lines(benchmark: Benchmark, rows, prompts, completions, graded, classes) -> list[str]:
    """samples.jsonl lines; completions[problem] is None for a skipped problem."""
    primary = benchmark.primary_metric.name
    lines = []
    for number, (row, prompt, samples, judged) in enumerate(zip(rows, prompts, completions, graded)):
        problem_id = row_id(row)
        for index, (scores, extracted) in enumerate(judged):
            record = {
                "benchmark": benchmark.name,
                "id": problem_id,
                "sample": index,
                "prompt": prompt,
                "completion": None if samples is None else samples[index],
                "extracted": extracted,
                "reference": benchmark.reference(row),
                "correct": scores[primary] > 0.5,
                "scores": scores,
            }
            if strict_name(primary) in scores:  # the math grader's strict verdict beside the lenient one
                record["correct_strict"] = scores[strict_name(primary)] > 0.5
            if classes is not None:  # the sample's vote for maj@k (null: no answer)
                record["answer_class"] = classes[number][index]
            if samples is not None:  # the math grader's `Extracted` knows; other graders' answers are null
                record["extraction_rule"] = getattr(extracted, "rule", None)
                record["graded_text"] = list(extracted.spans) if hasattr(extracted, "spans") else None
            else:
                record["skipped"] = SKIPPED
            lines.append(json.dumps(record, ensure_ascii=False))
    return lines


def _run_benchmark(benchmark, rows, prompts, sampler, *, k, chunk_size, prompt_fits, bar) -> tuple[dict, list[str]]:
    """(summary, samples.jsonl lines) of one benchmark."""
    fits = [prompt_fits(prompt) for prompt in prompts] if prompt_fits else [True] * len(rows)
    kept = [index for index, fit in enumerate(fits) if fit]
    # Each label is set before its phase starts (add_task and reset redraw at once), and a
    # finished benchmark reads "done": rich keeps finished bars on screen, and one still reading
    # "grading" above the next benchmark's sampling bar looked like grading during generation.
    task = bar.add_task(f"{benchmark.name}: sampling", total=len(kept))
    tick = time.monotonic()
    sampled = _sample(sampler, [prompts[i] for i in kept], k, chunk_size, lambda n: bar.advance(task, n))
    sampling_s, tick = time.monotonic() - tick, time.monotonic()
    bar.reset(task, total=len(kept) * k, description=f"{benchmark.name}: grading")
    judged = _grade(benchmark, [rows[i] for i in kept], sampled, k, lambda n: bar.advance(task, n))
    kept_classes = _vote_classes(benchmark, judged)
    grading_s = time.monotonic() - tick
    bar.update(task, description=f"{benchmark.name}: done", refresh=True)
    # Skipped problems: k failed samples, nothing extracted.
    failed = [({metric.name: 0.0 for metric in benchmark.metrics}, None)] * k
    completions: list[list[str] | None] = [None] * len(rows)
    graded: list[list] = [failed] * len(rows)
    for index, samples, verdicts in zip(kept, sampled, judged):
        completions[index], graded[index] = samples, verdicts
    classes = None
    if kept_classes is not None:  # skipped problems: every sample abstains
        classes = [[None] * k for _ in rows]
        for index, votes in zip(kept, kept_classes):
            classes[index] = votes
    summary = _summarise(benchmark, rows, graded, k, len(rows) - len(kept), classes)
    summary["timing"] = {"sampling_s": sampling_s, "grading_s": grading_s}
    return summary, _sample_lines(benchmark, rows, prompts, completions, graded, classes)


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
    prompt_fits: Callable[[str], bool] | None = None,
    environment: dict | None = None,
    loaded: list[list[dict]] | None = None,
) -> dict:
    """Run `benchmarks` with `sampler`; write results.json and samples.jsonl; return the results.

    `limit` keeps the first rows of each benchmark; `seed` drives the sampling only (it is recorded;
    generated benchmarks evaluate their fixed draw whatever the seed); `chunk_size` prompts go to the sampler at once;
    `prompt_fits(user_message) -> bool` (None: every prompt fits) picks the rows to sample;
    `environment` (the numerical environment of the run) is written to results.json as it is; `loaded`:
    each benchmark's rows as `Benchmark.load(data_dir, limit)` gave them, when the caller read them already."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be >= 1 (or None for every row), got {limit}")
    output_dir = Path(output_dir)
    if output_dir.exists() and not output_dir.is_dir():
        raise ValueError(f"output directory {output_dir} is a file, not a folder")
    output_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(output_dir)  # what an evaluation killed mid-write left behind
    started = time.monotonic()
    # Every benchmark's rows first, so that a bad data file fails before hours of sampling.
    if loaded is None:
        loaded = [benchmark.load(data_dir, limit) for benchmark in benchmarks]
    all_prompts = [[benchmark.prompt(row) for row in rows] for benchmark, rows in zip(benchmarks, loaded)]
    _check_capacity(benchmarks, all_prompts, k, output_dir)
    results: dict = {"benchmarks": {}}
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    samples_path, results_path = output_dir / "samples.jsonl", output_dir / "results.json"
    written = False
    try:
        with (
            Progress(*columns, disable=not progress) as bar,
            atomic_file(samples_path) as samples_file,
        ):
            for benchmark, rows, prompts in zip(benchmarks, loaded, all_prompts):
                summary, lines = _run_benchmark(
                    benchmark, rows, prompts, sampler, k=k, chunk_size=chunk_size, prompt_fits=prompt_fits, bar=bar
                )
                results["benchmarks"][benchmark.name] = summary
                with naming(samples_path):
                    samples_file.write("".join(line + "\n" for line in lines))
            with naming(samples_path):  # a disk that filled up shows here, before results.json is replaced
                samples_file.flush()
                os.fsync(samples_file.fileno())
            wall_s = time.monotonic() - started
            _finish(results, benchmarks, k=k, limit=limit, seed=seed, data_dir=data_dir, wall_s=wall_s)
            if environment is not None:
                results["environment"] = dict(environment)
            # Inside the samples file's block: a failure here also keeps the old samples.jsonl.
            with naming(results_path):
                atomic_write_text(results_path, json.dumps(results, indent=2))
            written = True
    except OSError as error:  # after `written`: flushing, syncing or renaming samples.jsonl failed
        if not written or error.filename is not None:
            raise
        raise OSError(error.errno, error.strerror or str(error), str(samples_path)) from error
    return results


def strict_name(metric: str) -> str:
    """The metric of the same samples graded in the math grader's strict mode (`acc` -> `acc_strict`)."""
    return f"{metric}_strict"


def strict_summary(summary: dict) -> dict:
    """A benchmark's strict metric summary (its primary one where it is graded in one mode only)."""
    metrics = summary["metrics"]
    return metrics.get(strict_name(summary["primary_metric"]), metrics[summary["primary_metric"]])


def _finish(results: dict, benchmarks: list[Benchmark], *, k, limit, seed, data_dir, wall_s: float) -> None:
    """Add the suite averages, settings and timing to `results`."""
    summaries = results["benchmarks"].values()
    primary = [summary["metrics"][summary["primary_metric"]][f"avg@{k}"] for summary in summaries]
    strict = [strict_summary(summary)[f"avg@{k}"] for summary in summaries]
    sampling_s = sum(summary["timing"]["sampling_s"] for summary in summaries)
    grading_s = sum(summary["timing"]["grading_s"] for summary in summaries)
    results["suite"] = {
        "avg": suite_average(primary) if primary else None,
        "avg_strict": suite_average(strict) if strict else None,
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
        "sampling_s": sampling_s,
        "grading_s": grading_s,
        "grading_share": grading_s / wall_s if wall_s else 0.0,
    }
