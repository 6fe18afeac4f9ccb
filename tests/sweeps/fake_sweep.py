"""`harness sweep` whose workers train with a fake (tests/sweeps/fake_worker.py): `python fake_sweep.py sweep ...`.

Run it with this folder on PYTHONPATH, so that the worker processes find `fake_worker`."""

import sys

import harness.cli
import sweeps.sweep_command

if __name__ == "__main__":
    sweeps.sweep_command.WORKER_MODULE = "fake_worker"
    sys.exit(harness.cli.main())
