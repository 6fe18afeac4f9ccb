"""A progress bar for RL runs showing reward, accuracy and entropy (rank 0 only)."""

from __future__ import annotations

import sys

import lightning as L
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class RLProgress(L.Callback):
    def __init__(self, total_steps: int):
        self.total_steps = total_steps
        self.progress: Progress | None = None
        self.task = None

    def on_train_start(self, trainer, pl_module):
        if not trainer.is_global_zero:
            return
        self.progress = Progress(
            TextColumn("RL"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            TimeRemainingColumn(),
            disable=not sys.stderr.isatty(),
        )
        self.progress.start()
        self.task = self.progress.add_task("rl", total=self.total_steps, completed=trainer.current_epoch, stats="")

    def on_train_epoch_end(self, trainer, pl_module):
        if self.progress is None or not pl_module.history:
            return
        last = pl_module.history[-1]
        stats = f"reward {last['reward_mean']:.3f} acc {last['accuracy']:.3f} entropy {last.get('entropy', 0):.3f}"
        self.progress.update(self.task, completed=last["step"] + 1, stats=stats)

    def on_train_end(self, trainer, pl_module):
        if self.progress is not None:
            self.progress.stop()
            self.progress = None
