"""Benchmark: what a sweep adds to each trial (Optuna + MLflow bookkeeping) against the trial's training.

    .venv/bin/python tests/perf/bench_sweep.py [--trials 3] [--steps 50]

Runs a small CE-GPPO beta grid on the tiny profile in one worker (in this process, SQLite stores
in a temporary folder) and reports per trial: the trial's wall time as Optuna records it, the
time inside `harness.training.train.train` (which includes the run's own per-step MLflow logging: that is
training, not sweep), and the difference, which is the sweep's own work (creating the nested
run, params, user attributes, summary metrics, tags, Optuna's trial bookkeeping); plus the gaps
between one trial's end and the next one's start. Overhead ratio = (differences + gaps) / training
time; target below 2%. Figures, not a test.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HARNESS_CACHE", str(ROOT / ".cache"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3, help="grid points (beta1 values), one trial each")
    parser.add_argument("--steps", type=int, default=50, help="RL steps per trial")
    args = parser.parse_args()

    from harness.cli import quiet_libraries
    from sweeps.config import load_sweep_config
    from sweeps.objective import run_trial
    from sweeps.study import open_study, quiet_optuna, run_worker

    quiet_libraries(False)
    quiet_optuna()
    with tempfile.TemporaryDirectory() as tmp:
        beta1 = [round(i / max(args.trials - 1, 1), 4) for i in range(args.trials)]
        config = load_sweep_config(
            None,
            {
                "study_name": "bench",
                "grid": {"loss.beta1": beta1, "loss.beta2": [1.0]},
                "output_dir": tmp,
                "tracking_uri": f"sqlite:///{tmp}/mlflow.db",  # the sweep's default is ./mlflow.db
            },
            {"run.steps": args.steps, "run.checkpoint_every": args.steps},
        )
        started = time.monotonic()
        run_worker(config, run_trial, log=lambda line: None)
        total = time.monotonic() - started
        trials = sorted(open_study(config).get_trials(), key=lambda t: t.datetime_start)
    print(f"sweep bookkeeping vs training: {args.trials} trials x {args.steps} RL steps, tiny profile, 1 worker")
    print(f"{'trial':>5} {'wall s':>8} {'train s':>8} {'sweep s':>8} {'sweep %':>8}")
    train_total = sweep_total = 0.0
    for t in trials:
        wall = (t.datetime_complete - t.datetime_start).total_seconds()
        train = t.user_attrs["train_seconds"]
        train_total, sweep_total = train_total + train, sweep_total + wall - train
        print(f"{t.number:>5} {wall:>8.2f} {train:>8.2f} {wall - train:>8.3f} {100 * (wall - train) / train:>7.2f}%")
    gaps = sum(
        (later.datetime_start - earlier.datetime_complete).total_seconds() for earlier, later in zip(trials, trials[1:])
    )
    ratio = (sweep_total + gaps) / train_total
    print(f"between trials: {gaps:.3f} s in all; whole worker {total:.1f} s (incl. opening the study and parent run)")
    print(f"overhead ratio (sweep work inside trials + gaps) / training = {100 * ratio:.2f}%  (target < 2%)")


if __name__ == "__main__":
    main()
