"""One sweep worker process: `python -m sweeps.worker INDEX`, the sweep config as JSON on stdin.

Started by `harness sweep` (`--workers N` starts N), which it never outlives (a parent-death signal
sends it SIGTERM). It opens the shared study and trains trials until the study is full
(`sweeps.study.run_worker`); each trial's training output goes to this worker's log, one line per
trial to its stdout. The config comes on stdin, not the command line, so that no store password
shows in the process list.

The first SIGTERM or Ctrl-C ends the current trial: its MLflow runs become KILLED and the trial
FAIL with a waiting retry, which the same command runs next time (`sweeps.recovery`); further
signals are ignored meanwhile, so that this bookkeeping is not cut short. Exit status: 0 done,
3 stopped by a failure of the environment (full disk...), 130 interrupted.
"""

from __future__ import annotations

import json
import signal
import sys

from harness.cli import quiet_libraries
from harness.config import build_config

ENVIRONMENT_EXIT = 3


def _interrupt_once(signum, frame) -> None:
    """Raise KeyboardInterrupt once; later SIGTERM / SIGINT (the parent's terminate, a second Ctrl-C)
    are ignored while the trial records its end."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def main() -> int:
    from sweeps.config import SweepConfig
    from sweeps.objective import run_trial
    from sweeps.recovery import EnvironmentFailure
    from sweeps.study import quiet_optuna, run_worker

    index = int(sys.argv[1])
    quiet_libraries(verbose=False)
    quiet_optuna()
    signal.signal(signal.SIGTERM, _interrupt_once)
    signal.signal(signal.SIGINT, _interrupt_once)
    config = build_config(SweepConfig, json.loads(sys.stdin.read()))
    try:
        run_worker(config, run_trial, index, log=lambda line: print(line, flush=True))
    except EnvironmentFailure as failure:
        print(f"worker {index}: stopped: {failure}", flush=True)
        return ENVIRONMENT_EXIT
    except KeyboardInterrupt:
        print(f"worker {index}: interrupted", flush=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
