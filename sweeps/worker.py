"""One sweep worker process: `python -m sweeps.worker INDEX`, the sweep config as JSON on stdin.

Started by `harness sweep` (`--workers N` starts N). It opens the shared study and trains trials
until the study is full (`sweeps.study.run_worker`); each trial's training output goes to this
worker's log, one line per trial to its stdout. SIGTERM and Ctrl-C end the current trial's runs
as KILLED (the trial is failed and a later start retries nothing: it is counted as done).
"""

from __future__ import annotations

import json
import sys

from harness.cli import _terminate_as_interrupt, quiet_libraries
from harness.config import build_config


def main() -> int:
    import signal

    from sweeps.config import SweepConfig
    from sweeps.objective import run_trial
    from sweeps.study import quiet_optuna, run_worker

    index = int(sys.argv[1])
    quiet_libraries(verbose=False)
    quiet_optuna()
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    config = build_config(SweepConfig, json.loads(sys.stdin.read()))
    try:
        run_worker(config, run_trial, index, log=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print(f"worker {index}: interrupted", flush=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
