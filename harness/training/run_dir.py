"""The output directory of one `harness train` run: what it holds, who owns it, what resuming may change.

    run_dir = RunDirectory("runs/ce")
    run_dir.claim()              # refuse a file, an unwritable place (or checkpoints/), a second process
    run_dir.check_resumable(config)   # a resume must continue the same run

Layout: `checkpoints/` (last.ckpt and the newest rl-step<N>.ckpt), `run_state.json` (the MLflow
store and run id, so `--resume` continues the same run), `config.yaml` (the resolved config of
the first start), `rollouts.jsonl` (a sample of each step's completions), `reward_suspects.jsonl`
(completions the online reward check flagged, see harness.training.reward_check), `model/`,
`summary.json`, and `.lock`, held with flock by the process that owns the run (under DDP, rank 0).

A password in the tracking URI is never written here: run_state.json, config.yaml and summary.json
hold the URI masked (`harness.common.uris.redact`); `--resume` compares masked forms and connects
with the URI given on its command line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from harness.common.errors import ConfigError
from harness.common.files import (
    atomic_file,
    atomic_write_text,
    ensure_file_places,
    ensure_writable_folder,
    hold_lock,
    naming,
    remove_stale_temporaries,
)
from harness.common.uris import redact
from harness.config_fields import resumable_keys, without_added_defaults
from harness.dataclass_config import to_dict
from harness.schema import TrainConfig
from harness.tracking import flatten
from harness.training.checkpoints import latest_intact_checkpoint


def shown_config(config: TrainConfig) -> dict:
    """The config as a run stores and shows it (config.yaml, summary.json, MLflow params): a plain
    dict with the password of every URL in it masked."""
    return _masked(to_dict(config))


def _masked(tree):
    if isinstance(tree, dict):
        return {key: _masked(value) for key, value in tree.items()}
    if isinstance(tree, list):
        return [_masked(value) for value in tree]
    return redact(tree) if isinstance(tree, str) else tree


class RunDirectory:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.checkpoints = self.path / "checkpoints"
        self.state_file = self.path / "run_state.json"
        self.config_file = self.path / "config.yaml"
        self.rollouts_file = self.path / "rollouts.jsonl"
        self.suspects_file = self.path / "reward_suspects.jsonl"
        self.summary_file = self.path / "summary.json"
        self.model_dir = self.path / "model"
        self._lock = None

    def claim(self) -> None:
        """Create the folder and take its lock for this process; one-line errors for a file, an
        unwritable location, or another live `harness train` in the same folder. Removes what
        killed writers left behind (temporary files)."""
        ensure_writable_folder(self.path, "run.output_dir")
        ensure_writable_folder(self.checkpoints, "the run's checkpoints folder")
        if os.path.lexists(self.model_dir):  # written at the end, through a sibling: only what is in the way
            ensure_writable_folder(self.model_dir, "the run's model folder")
        files = [self.state_file, self.config_file, self.rollouts_file, self.suspects_file, self.summary_file]
        ensure_file_places([*files, self.checkpoints / "last.ckpt"], "harness train")
        handle = hold_lock(
            self.path / ".lock",
            f"{self.path} is in use by another harness train (pid {{pid}}); wait for it or choose another --output-dir",
            f"run.output_dir={str(self.path)!r}",
        )
        self._lock = handle
        for folder in (self.path, self.checkpoints):
            remove_stale_temporaries(folder)

    def state(self) -> dict | None:
        """run_state.json: {"tracking_uri", "experiment", "mlflow_run_id"} of the run here, if any."""
        if not self.state_file.is_file():
            return None
        try:
            return json.loads(self.state_file.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None

    def write_state(self, tracking_uri: str, experiment: str, run_id: str) -> None:
        state = {"tracking_uri": redact(tracking_uri), "experiment": experiment, "mlflow_run_id": run_id}
        with naming(self.state_file):
            atomic_write_text(self.state_file, json.dumps(state))

    def write_config(self, config: TrainConfig) -> None:
        with naming(self.config_file):
            atomic_write_text(self.config_file, yaml.safe_dump(shown_config(config), sort_keys=False))

    def checkpoint(self) -> tuple[Path, str | None] | None:
        """(the checkpoint to resume from, a note when last.ckpt was damaged), or None."""
        return latest_intact_checkpoint(self.checkpoints)

    def has_checkpoint_files(self) -> bool:
        return self.checkpoints.is_dir() and any(self.checkpoints.glob("*.ckpt"))

    def check_resumable(self, config: TrainConfig, steps_done: int) -> None:
        """Refuse a resume that would not continue the same run: only the keys declared `resumable`
        (harness.config_fields) may differ from the run's."""
        state = self.state() or {}
        uri = config.run.tracking_uri
        if state.get("tracking_uri") not in (None, uri, redact(uri)):  # masked since passwords are not stored
            raise ConfigError(
                f"--resume: the run in {self.path} is tracked at {redact(str(state['tracking_uri']))}; resume it "
                f"with that --tracking-uri (got {redact(uri)})"
            )
        if not self.config_file.is_file():
            raise ConfigError(
                f"--resume: {self.config_file} is missing, so this config cannot be checked against the run's; "
                "restore it, or start a new --output-dir"
            )
        try:
            saved = flatten(_masked(yaml.safe_load(self.config_file.read_text(encoding="utf-8")) or {}))
        except (yaml.YAMLError, UnicodeDecodeError, AttributeError):
            raise ConfigError(f"--resume: {self.config_file} is damaged (not the YAML this run wrote)") from None
        # a run saved before a key existed ran with its default (the key's `since`)
        saved = without_added_defaults(TrainConfig, saved)
        new = without_added_defaults(TrainConfig, flatten(shown_config(config)))
        resumable = resumable_keys(TrainConfig)

        def may_change(key: str) -> bool:  # a dict field (run.tags) is flattened into run.tags.<name>
            return key == "run.output_dir" or any(key == r or key.startswith(f"{r}.") for r in resumable)

        changed = [
            f"{key}: {saved.get(key)!r} -> {new.get(key)!r}"
            for key in sorted(set(saved) | set(new))
            if saved.get(key) != new.get(key) and not may_change(key)
        ]
        if changed:
            raise ConfigError(
                f"--resume: this config differs from the run in {self.path} ({'; '.join(changed)}); a resume "
                f"may change only {', '.join(resumable)}. Start a new --output-dir for another config"
            )
        # Equal counts with no summary yet: the run was killed after its last step, while writing
        # the final model or summary; resuming does just that remaining work.
        finished = config.run.steps == steps_done and self.summary_file.is_file()
        if config.run.steps < steps_done or finished:
            raise ConfigError(
                f"--resume: the checkpoint in {self.path} already holds {steps_done} steps and run.steps="
                f"{config.run.steps}; raise run.steps to continue training"
            )


class RolloutLog:
    """rollouts.jsonl: a sample of each step's completions, appended as the step ends.

    On resume the rows of steps the checkpoint does not hold (written before a kill) are dropped
    first, so the file holds every step exactly once."""

    def __init__(self, path: Path):
        self.path = path

    def restart_at(self, step: int) -> None:
        """Keep only the rows of steps before `step` (0: start an empty log)."""
        kept = []
        if step > 0 and self.path.is_file():
            for line in self.path.read_text().splitlines():
                try:
                    if json.loads(line)["step"] < step:
                        kept.append(line + "\n")
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue  # a line cut short by a kill
        with atomic_file(self.path) as sink:
            sink.writelines(kept)

    def write(self, step: int, rows: list[dict]) -> None:
        with naming(self.path), open(self.path, "a") as sink:
            sink.writelines(json.dumps({"step": step, **row}) + "\n" for row in rows)
