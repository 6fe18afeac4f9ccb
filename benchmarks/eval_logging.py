"""An evaluation's results in MLflow: flat metric names, one batch of metrics, the two files as artifacts.

    results = evaluate(...)                      # benchmarks.runner
    with mlflow.start_run():
        log_to_mlflow(results, Path("runs/eval"))

Metric names are eval/<benchmark>/<metric>/<key> with the results.json key spelled as MLflow accepts
it (`mlflow_metric_key`: no "@" or "^"), plus the skipped-problem counts, the suite averages and the
timing. The numerical environment is not a metric: the harness sets it as tags (harness.common.environment).
"""

from pathlib import Path


def mlflow_metric_key(key: str) -> str:
    """A results.json metric key as MLflow accepts it: avg@4 -> avg_at_4, maj@4 -> maj_at_4, pass^4 -> pass_hat_4."""
    return key.replace("@", "_at_").replace("^", "_hat_")


def mlflow_metrics(results: dict) -> dict[str, float]:
    """Flat MLflow metric names: eval/<benchmark>/<metric>/avg_at_4, .../pass_at_1, .../pass_hat_4,
    .../maj_at_4, eval/<benchmark>/num_skipped, eval/suite_avg, eval/suite_avg_strict."""
    flat = {}
    for name, summary in results["benchmarks"].items():
        for metric, values in summary["metrics"].items():
            for key, value in values.items():
                if key != "higher_is_better":
                    flat[f"eval/{name}/{metric}/{mlflow_metric_key(key)}"] = float(value)
        flat[f"eval/{name}/num_skipped"] = float(summary["num_skipped"])
    if results["suite"]["avg"] is not None:
        flat["eval/suite_avg"] = float(results["suite"]["avg"])
    if results["suite"].get("avg_strict") is not None:  # results.json files from before strict grading lack it
        flat["eval/suite_avg_strict"] = float(results["suite"]["avg_strict"])
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
