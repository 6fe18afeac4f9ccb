"""One sweep worker process: `python -m sweeps.worker INDEX`, the sweep config as JSON on stdin.

Started by `harness sweep` (`--workers N` starts N), which it never outlives (a parent-death signal
sends it SIGTERM). It opens the shared study and trains trials until the study is full
(`sweeps.study.run_worker`); each trial's training output goes to this worker's log, one line per
trial to its stdout. The config comes on stdin, not the command line, so that no store password
shows in the process list.

The first SIGTERM or Ctrl-C ends the current trial: its MLflow runs become KILLED and the trial
FAIL with a waiting retry, which the same command runs next time (`sweeps.recovery`); further
signals are recorded but raise nothing, so that this bookkeeping is not cut short. Exit status: 0 done,
3 stopped by a failure of the environment (full disk...), 130 interrupted.
"""

from __future__ import annotations

import json
import signal
import sys

from harness.cli import quiet_libraries
from harness.common.processes import interrupt_on_sigterm
from harness.dataclass_config import build_config

ENVIRONMENT_EXIT = 3


def interrupt_once() -> None:
    """SIGTERM and SIGINT raise KeyboardInterrupt once (recorded, so that training stops at its next step
    even if Python swallowed the exception: harness.common.processes); later ones (the parent's
    terminate, a second Ctrl-C) are recorded only, so that the trial's bookkeeping is not cut short."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    interrupt_on_sigterm()
    record_and_raise = signal.getsignal(signal.SIGTERM)

    def record_only(signum, frame) -> None:
        try:
            record_and_raise(signum, frame)
        except KeyboardInterrupt:
            pass

    def first(signum, frame) -> None:
        signal.signal(signal.SIGTERM, record_only)
        signal.signal(signal.SIGINT, record_only)
        record_and_raise(signum, frame)

    signal.signal(signal.SIGTERM, first)
    signal.signal(signal.SIGINT, first)


def main() -> int:
    from sweeps.config import SweepConfig
    from sweeps.objective import run_trial
    from sweeps.recovery import EnvironmentFailure
    from sweeps.study import quiet_optuna, run_worker

    index = int(sys.argv[1])
    quiet_libraries(verbose=False)
    quiet_optuna()
    interrupt_once()
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
