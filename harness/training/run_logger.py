"""`RunLogger`: Lightning's MLFlowLogger for a training run, on the tracking store's retrying client.

    logger = RunLogger(uri, "ce-gppo-harness", "ce_gppo-seed0")
    trainer = L.Trainer(logger=logger, ...)
    ...
    logger.terminate("FINISHED")          # or FAILED / KILLED, with the reason as a tag

`terminate` records the outcome. Lightning's own end-of-fit `finalize` is ignored, so a run is
FINISHED only when everything after training (held-out accuracy, model, summary) is done. On
resume, (metric, step) pairs the run already holds are skipped, so steps recomputed after the
last checkpoint are not recorded twice. Kept apart from `harness.tracking` because it imports
Lightning (and torch): commands that only check or read a store do not pay for that.
"""

from __future__ import annotations

from collections.abc import Mapping

from lightning.pytorch.loggers import MLFlowLogger
from lightning.pytorch.utilities import rank_zero_only

from harness.common.uris import redact
from harness.tracking import FAILURE_TAG, RetryingClient, get_or_create_experiment


class RunLogger(MLFlowLogger):
    """Lightning's MLFlowLogger on a retrying client, with explicit termination and resume dedup."""

    def __init__(
        self,
        uri: str,
        experiment: str,
        run_name: str | None,
        run_id: str | None = None,
        tags=None,
        *,
        fresh: bool | None = None,
        artifact_location: str | None = None,
        log=None,
    ):
        """`run_id` attaches to an existing run: a resumed one (the default: steps it already holds
        are skipped) or, with `fresh=True`, an empty one its creator handed over (a sweep trial).
        `artifact_location` and `log` go to `get_or_create_experiment`."""
        super().__init__(
            experiment_name=experiment,
            run_name=run_name,
            tracking_uri=uri,
            run_id=run_id,
            tags=tags,
            artifact_location=artifact_location,
        )
        self._mlflow_client = RetryingClient(uri)
        self.uri = uri
        self._resumed = run_id is not None and not fresh
        self._recorded: dict[str, int] = {}  # metric -> last step the run already holds (resume only)
        if run_id is None and rank_zero_only.rank == 0:  # other ranks never touch the store
            self._experiment_id = get_or_create_experiment(self._mlflow_client, experiment, uri, artifact_location, log)

    def _last_recorded_step(self, key: str) -> int:
        if key not in self._recorded:
            history = self.experiment.get_metric_history(self.run_id, key)
            self._recorded[key] = max((m.step for m in history), default=-1)
        return self._recorded[key]

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        if self._resumed and step is not None:
            # A killed run may hold steps past its last checkpoint: keep the first record of each.
            metrics = {k: v for k, v in metrics.items() if step > self._last_recorded_step(k)}
            if not metrics:
                return
        super().log_metrics(metrics, step)

    def finalize(self, status: str = "success") -> None:
        """Ignored: Lightning calls it when `fit` ends, before the run's last work; see `terminate`."""

    def terminate(self, status: str, reason: str | None = None) -> None:
        """End the run as FINISHED, FAILED or KILLED; a reason is stored as a tag (passwords masked)."""
        if not self._initialized:
            return
        if reason:
            self.experiment.set_tag(self.run_id, FAILURE_TAG, redact(reason)[:5000])
        self.experiment.set_terminated(self.run_id, status)

    def reopen(self) -> None:
        """Mark a resumed run RUNNING again (it was KILLED or FAILED when its process died)."""
        self.experiment.update_run(self.run_id, status="RUNNING")
