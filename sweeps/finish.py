"""The end of a sweep: report files, the MLflow parent run's artifacts, tags and status, the printed report.

`finish` writes trials.csv, trials.md and the figures in the output folder (each file to a temporary
sibling renamed over its name, so a symlink planted there is replaced, never written through), puts them and the best
trial on the parent run, ends that run (FINISHED once every trial is done, or the status the
command decided: KILLED, FAILED) and prints the report. A disk that refuses the files is a note,
not a failure, so that the report and the parent's status still come through.
"""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path

from harness.common.files import atomic_write_text
from harness.tracking import FAILURE_TAG, RetryingClient
from sweeps.study import count_trials
from sweeps.sweep_figures import save_figures
from sweeps.sweep_report import best_lines, sweep_report, trial_rows


def finish(study, config, parent: str, status: str | None, reason: str, log) -> None:
    """Figures, trial table and best trial onto the parent run; print the report. The parent ends
    with `status` (KILLED, FAILED), or FINISHED once every trial is done."""
    figures = write_report_files(study, config, log)
    report = sweep_report(study, config, parent, [str(p) for p in figures])
    output = Path(config.output_dir)
    try:
        atomic_write_text(output / "trials.md", "```\n" + report + "\n```\n")  # a symlink is replaced, not followed
    except OSError as error:
        log(f"note: could not write {output / 'trials.md'}: {error.strerror or error}")
    client = RetryingClient(config.mlflow_uri)
    for path in [output / "trials.csv", output / "trials.md", *figures]:
        try:
            if path.is_file():
                client.log_artifact(parent, str(path))
        except Exception as error:  # a full disk under the artifact store: the report still matters
            log(f"note: could not store {path.name} on the parent run: {str(error).splitlines()[0][:200]}")
    for line in best_lines(study, config):
        client.set_tag(parent, "sweep.best", line[:5000])
    complete = [t for t in study.get_trials(deepcopy=False) if t.state.name == "COMPLETE"]
    if complete and config.objective == "accuracy_gain":
        best = study.best_trial
        client.set_tag(parent, "sweep.best_trial", str(best.number))
        for key, value in best.params.items():
            client.set_tag(parent, f"sweep.best.{key}", f"{value:g}")
        from mlflow.entities import Metric

        client.log_batch(parent, metrics=[Metric("best_accuracy_gain", best.value, int(time.time() * 1000), 0)])
    done, pending = count_trials(study)
    if status is None and done >= config.total_trials and not pending:
        status = "FINISHED"
    if status is not None:
        if reason:
            client.set_tag(parent, FAILURE_TAG, reason[:5000])
        client.set_terminated(parent, status)
    log(report)


def write_report_files(study, config, log) -> list[Path]:
    """trials.csv and the figures in the output folder (a note, not a failure, when the disk refuses)."""
    output = Path(config.output_dir)
    try:
        header, rows = trial_rows(study)
        table = io.StringIO(newline="")
        csv.writer(table).writerows([header, *rows])
        atomic_write_text(output / "trials.csv", table.getvalue())  # temporary sibling renamed over the name
        return save_figures(study, config, output / "figures")
    except OSError as error:
        log(f"note: could not write the report files in {output}: {error.strerror or error}")
        return []
