"""A sweep worker whose training is a fake (no model): `sweeps.worker` with `sweeps.objective.train` replaced.

Tests of what a sweep does around its trials (kills, signals, a full disk, several workers) run
real worker processes, the real objective, Optuna and MLflow, in seconds instead of the minutes
of real training. Point `sweeps.sweep_command.WORKER_MODULE` at "fake_worker" with this folder on PYTHONPATH.

Environment: FAKE_TRAIN_SECONDS (how long a trial trains, default 0) for the trials whose folder
name holds FAKE_TRAIN_SLOW (default: every trial), FAKE_TRAIN_FAIL ("enospc": an OSError naming
the trial's folder; "zip": torch's "unexpected pos" error of a full disk), FAKE_TRAIN_BARRIER
(a trial waits until that many trials have started: with one per worker, every worker trains).
Each trial's folder gets a file `started` (holding the worker's PID) when its training starts.

`in_process_workers` replaces `sweeps.sweep_command.start_workers` where a test runs the workers in its own
process (as sweeps.worker would, without the cost of starting one).
"""

import errno
import os
import sys
import time
from pathlib import Path


def fake_summary(config) -> dict:
    """A summary.json as train() returns it, with figures that depend on the trial's beta1."""
    beta1 = float(config.loss.get("beta1", 0.0))
    step = {"entropy": 1.0 - beta1 / 2, "ppo_kl": 0.01, "grad_norm": 1.0, "grad_norm_max": 1.0, "skipped_updates": 0}
    return {
        "heldout_before": {"greedy_accuracy": 0.5},
        "heldout_after": {"greedy_accuracy": 0.5 + beta1 / 10},
        "history": [{**step, "step": 0}, {**step, "step": 1}],
        "config": {"task": {"heldout_size": 50}},
    }


def fake_train(config, log=print, run_id=None, callbacks=()):
    folder = Path(config.run.output_dir)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "started").write_text(str(os.getpid()))
    deadline = time.monotonic() + 120
    while len(list(folder.parent.glob("*/started"))) < int(os.environ.get("FAKE_TRAIN_BARRIER", "0")):
        if time.monotonic() > deadline:
            raise TimeoutError("the other workers never started a trial")
        time.sleep(0.1)
    failure = os.environ.get("FAKE_TRAIN_FAIL", "")
    if failure == "enospc":
        raise OSError(errno.ENOSPC, "No space left on device", str(folder / "checkpoints" / "last.ckpt"))
    if failure == "zip":
        raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 2013376 vs 2013268")
    try:
        if os.environ.get("FAKE_TRAIN_SLOW", "") in folder.name:
            time.sleep(float(os.environ.get("FAKE_TRAIN_SECONDS", "0")))
    except KeyboardInterrupt:
        raise SystemExit(1) from None  # what Lightning's Trainer does on Ctrl-C or SIGTERM
    return fake_summary(config)


def in_process_workers(config, count):
    from sweeps.objective import run_trial
    from sweeps.recovery import EnvironmentFailure
    from sweeps.study import run_worker

    for index in range(count):
        try:
            run_worker(config, run_trial, index, log=lambda line: None)
        except EnvironmentFailure:
            pass  # sweeps.worker ends with status 3; the sweep reads the cause from the study
    return []


if __name__ == "__main__":
    from sweeps import objective, worker

    objective.train = fake_train
    sys.exit(worker.main())
