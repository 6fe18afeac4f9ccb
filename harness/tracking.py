"""MLflow tracking: a local SQLite store by default, any tracking server by URI.

`make_logger` returns Lightning's own `MLFlowLogger`; with `run_id` it re-attaches to an
existing run (resume). `flatten` turns the resolved config into MLflow params.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lightning.pytorch.loggers import MLFlowLogger


def artifact_root(tracking_uri: str) -> str | None:
    """For a SQLite store, keep artifacts next to the database file (not in ./mlruns)."""
    if tracking_uri.startswith("sqlite:///"):
        db = Path(tracking_uri.removeprefix("sqlite:///")).resolve()
        return (db.parent / "mlartifacts").as_uri()
    return None


def make_logger(tracking_uri: str, experiment: str, run_name: str | None, run_id: str | None = None):
    return MLFlowLogger(
        experiment_name=experiment,
        run_name=run_name,
        tracking_uri=tracking_uri,
        artifact_location=artifact_root(tracking_uri),
        run_id=run_id,
    )


def flatten(tree: dict, prefix: str = "") -> dict[str, Any]:
    """{"optim": {"lr": 1e-5}} -> {"optim.lr": 1e-5}."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
