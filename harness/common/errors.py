"""The project's one hierarchy of user-facing errors.

Every error a user can cause or fix (a config mistake, an unusable data file, a tracking store
that cannot be used) is a `UserError`. Its message is one line that names the bad value and
what is allowed. The command line (`harness.cli`) prints that line and exits with status 2,
without a traceback; anything else is a bug and keeps its traceback.

    UserError
    ├── ConfigError    a config file, a flag or a value out of range      (also a ValueError)
    ├── DataError      a data file the project cannot read                (also a ValueError)
    ├── TrackingError  a tracking / study store that cannot be used       (also a RuntimeError)
    └── WorkerError    a run's helper process (rollout worker) failed     (also a RuntimeError)

The second bases keep `except ValueError` in callers that validate values working.
"""

from __future__ import annotations


class UserError(Exception):
    """Something the user can fix: one line, exit status 2 on the command line."""


class ConfigError(UserError, ValueError):
    """A user mistake in a config file or a command-line flag."""


class DataError(UserError, ValueError):
    """A data file the project cannot use (malformed, empty, wrong encoding), naming the file and line."""


class TrackingError(UserError, RuntimeError):
    """A tracking or study store that cannot be used (bad URI, nothing listening, kept failing)."""


def first_line(error: BaseException) -> str:
    """`Type: first line of the message` (at most 300 characters), for one-line reports of a library's error."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:300]}" if text else type(error).__name__


class WorkerError(UserError, RuntimeError):
    """A helper process of a run (a rollout worker) died or failed: one line naming its failure. The run's
    checkpoints are kept, so `--resume` continues it."""
