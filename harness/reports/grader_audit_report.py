"""`harness grader-audit`: the math grader against a careful reading, printed, written and tracked.

    harness grader-audit                              # the per-family table; logged to the default store
    harness grader-audit --show-disagreements --json runs/grader_audit.json --tracking-uri none

The audit itself is `benchmarks.grading.grader_audit` (graded once per grader version, then cached). This
prints its table, writes the full result with the id of every disagreement to `--json`, and logs
it to MLflow (experiment "grader-audit"): the artifacts grader_audit.json and grader_audit.md and
the metrics agreement_<mode>, false_positives_<mode>, false_negatives_<mode> (mode lenient or
strict) and non_answers_credited. `--tracking-uri none` logs nothing. A database store keeps no files,
so a new "grader-audit" experiment there needs `--artifact-root` (a folder or a URI); without it the
command is refused before the grading, as is a cache folder ($HARNESS_CACHE) that is a file.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.grading.grader_audit import MODES, audit_line, audit_markdown, audit_table, cached_audit
from harness.common.files import atomic_write_text, ensure_file_places, ensure_writable_folder
from harness.common.uris import redact

EXPERIMENT = "grader-audit"


def audit_metrics(result: dict) -> dict[str, float]:
    """The MLflow metrics of an audit (see the module docstring)."""
    metrics = {"non_answers_credited": float(result["non_answers_credited"])}
    for mode in MODES:
        counts = result["modes"][mode]
        metrics[f"agreement_{mode}"] = counts["agreement"]
        metrics[f"false_positives_{mode}"] = float(counts["false_positives"])
        metrics[f"false_negatives_{mode}"] = float(counts["false_negatives"])
    return metrics


def artifact_location(uri: str, configured: str | None) -> str | None:
    """Where a new audit experiment keeps its files (`harness.tracking.artifact_root`); None when the store
    chooses, or the experiment exists already with its own. TrackingError for a database store without
    `configured` and without the experiment: said before the grading, not after it."""
    from harness.common.errors import TrackingError
    from harness.tracking import RetryingClient, artifact_root

    try:
        return artifact_root(uri, configured)
    except TrackingError:
        if RetryingClient(uri).get_experiment_by_name(EXPERIMENT) is not None:
            return None  # its runs' files go where the experiment was created to keep them
        raise


def grader_audit(
    uri: str,
    json_path: str | None = None,
    show_disagreements: bool = False,
    log=print,
    artifact_root: str | None = None,
) -> dict:
    """Run (or read the cached) audit, print it, write `json_path`, log it to `uri` ("none": no tracking);
    `artifact_root`: where a new experiment in a database store keeps its files."""
    if json_path is not None:  # refused before the grading: a file where its folder goes, a folder in its place
        ensure_writable_folder(Path(json_path).parent, "--json's folder")
        ensure_file_places([Path(json_path)], "harness grader-audit --json")
    if uri != "none":
        from harness.tracking import check_store

        check_store(uri)  # an unreachable store fails in seconds, before the grading
        location = artifact_location(uri, artifact_root)
    result = cached_audit()
    log(audit_table(result, show_disagreements=show_disagreements))
    log(audit_line(result))
    text = json.dumps(result, indent=1, ensure_ascii=False)
    if json_path is not None:
        atomic_write_text(json_path, text)
        log(f"written: {json_path}")
    if uri != "none":
        import mlflow

        from harness.tracking import tracked_run

        with tracked_run(
            uri, EXPERIMENT, f"grader-audit-{result['fingerprint']}", artifact_location=location, log=log
        ) as run_id:
            mlflow.log_metrics(audit_metrics(result))
            mlflow.log_params({"fingerprint": result["fingerprint"], "cases": result["cases"]})
            mlflow.log_text(text, "grader_audit.json")
            mlflow.log_text(audit_markdown(result), "grader_audit.md")
        log(f"MLflow run {run_id} in experiment {EXPERIMENT!r} at {redact(uri)}")
    return result
