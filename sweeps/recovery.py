"""Trials that did not fail on their own account: killed or interrupted workers, a full or read-only disk.

A trial can end without a result for two kinds of reasons. Its own (the loss diverged, the code
raised): it is FAIL and counts as done, like any result. Or the environment's: its worker was
killed or interrupted, the disk filled up, the file system turned read-only. Such a failure says
nothing about the trial's parameters, so it must not use up its grid point:

- the trial is recorded FAIL with the user attribute `environment_failure` (the cause, naming the
  path), and a WAITING copy of it (same parameters and grid point; system attributes
  `failed_trial`, the first trial of the chain, and `retry_history`) is added at once by the
  worker that saw it fail. `sweeps.study.count_trials` counts the copy, never the failed trial.
  There is no retry limit: each command retries at most once per worker;
- a worker whose trial failed that way stops taking trials (the next one would fail the same
  way), and `harness sweep` exits non-zero naming the cause; the same command, once the cause is
  fixed, runs the copy;
- a worker killed with SIGKILL records nothing. Its RUNNING trial is found by the next worker on
  the same machine: the trial's `worker_process` attribute (host, boot id, PID namespace, PID and
  the process's start time) names a process that is gone, or a PID now reused by another
  process, so the trial is failed and retried at once. A trial of another machine can only be
  judged by its heartbeat: it is failed and retried after `grace_period` seconds without one,
  and workers wait for it until then.
"""

from __future__ import annotations

import copy
import errno
import os
import shutil
import socket
from pathlib import Path

import optuna
from optuna.exceptions import UpdateFinishedTrialError
from optuna.trial import FrozenTrial, TrialState

from harness.common.errors import UserError, first_line
from harness.tracking import close_orphan, tagged_runs

INTERRUPTED = "interrupted (SIGTERM or Ctrl-C)"
# errno values that say "the machine", not "the trial": full disk or quota, read-only or failing
# file system, a folder that became unusable, no file handles left.
ENVIRONMENT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EACCES, errno.ENOTDIR}
ENVIRONMENT_ERRNOS |= {errno.EMFILE, errno.ENFILE}
# The same causes as libraries word them without an errno: torch's zip writer ("unexpected pos"
# when a write came up short on a full disk), SQLite's full database.
_MARKERS = ("no space left on device", "disk quota exceeded", "read-only file system", "unexpected pos")
_MARKERS += ("file write failed", "database or disk is full")


class EnvironmentFailure(UserError):
    """A trial could not run for a reason outside it (a full disk, a read-only folder): fix that and run
    the same command again, which retries the trial."""


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def _free_space(where: Path) -> str:
    folder = where
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        return f"{shutil.disk_usage(folder).free / 1e6:.1f} MB free there"
    except OSError:
        return "free space unknown"


def environment_cause(error: BaseException, where: Path) -> str | None:
    """One line naming the environmental cause of `error` and its path (`where` when the error names
    none), or None when the error is the trial's own."""
    if isinstance(error, (KeyboardInterrupt, SystemExit)):
        return INTERRUPTED
    for link in _chain(error):
        if isinstance(link, OSError) and link.errno in ENVIRONMENT_ERRNOS:
            return f"{os.strerror(link.errno)}: {link.filename or where}"
    for link in _chain(error):
        if any(marker in str(link).lower() for marker in _MARKERS):
            return f"could not write under {where} ({first_line(link)}; {_free_space(where)}); is the disk full?"
    return None


# ---------------------------------------------------------------- which process runs a trial


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _start_time(pid: int) -> str | None:
    """The process's start time (clock ticks since boot; field 22 of /proc/PID/stat), None when the PID
    is free or a zombie (killed, not yet reaped)."""
    stat = _read(f"/proc/{pid}/stat")
    if stat is None:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # the name in parentheses may hold spaces
    return None if fields[0] == "Z" else fields[19]


def _machine() -> dict[str, str | None]:
    pidns = None
    try:
        pidns = os.readlink("/proc/self/ns/pid")
    except OSError:
        pass
    return {"host": socket.gethostname(), "boot": _read("/proc/sys/kernel/random/boot_id"), "pidns": pidns}


def process_identity() -> dict:
    """What names this process beyond doubt on this machine (stored on each trial it runs)."""
    return {**_machine(), "pid": os.getpid(), "start": _start_time(os.getpid())}


def process_gone(identity: dict | None) -> bool | None:
    """True when the process `identity` names is gone (or its PID now belongs to another process);
    False when it runs; None when this machine cannot tell (another host, container or no /proc)."""
    if not identity or identity.get("start") is None or identity.get("boot") is None:
        return None
    here = _machine()
    if identity.get("host") != here["host"] or identity.get("pidns") != here["pidns"]:
        return None
    if identity["boot"] != here["boot"]:
        return True  # the machine rebooted since: every process of that boot is gone
    return _start_time(int(identity["pid"])) != identity["start"]


# ---------------------------------------------------------------- failing and retrying


def retry_trial(study: optuna.Study, trial: FrozenTrial) -> None:
    """Add a WAITING copy of `trial` (its parameters and grid point), to be run by the next free worker."""
    history = [*trial.system_attrs.get("retry_history", []), trial.number]
    system_attrs = {**trial.system_attrs, "failed_trial": history[0], "retry_history": history}
    study.add_trial(
        optuna.create_trial(
            state=TrialState.WAITING,
            params=trial.params,
            distributions=trial.distributions,
            system_attrs=system_attrs,
        )
    )


def close_dead_trial(config):
    """The callback for a trial whose worker died (heartbeat stale, or its process gone): its MLflow
    runs become KILLED, then the trial is retried."""

    def callback(study: optuna.Study, trial: FrozenTrial) -> None:
        from harness.tracking import RetryingClient

        # The trial's run id is a user attribute once recorded; a worker killed between creating
        # the run and recording its id leaves a RUNNING run found only by its tags (seed runs too).
        client = RetryingClient(config.mlflow_uri)
        tags = {"sweep.study": config.study_name, "sweep.trial": str(trial.number)}
        runs = {run.info.run_id for run in tagged_runs(client, config.experiment, tags, status="RUNNING")}
        runs.add(trial.user_attrs.get("mlflow_run_id"))
        for run_id in sorted(runs - {None}):
            close_orphan(config.mlflow_uri, run_id, "its sweep worker died")
        retry_trial(study, trial)

    return callback


def fail_dead_trials(study: optuna.Study, config) -> list[int]:
    """Fail and retry the RUNNING trials whose worker process on this machine is gone; their numbers.
    Two workers doing this at once fail a trial once: the storage refuses the second update."""
    storage = study._storage
    dead = []
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        identity = trial.user_attrs.get("worker_process")
        if process_gone(identity) is not True:
            continue
        try:
            storage.set_trial_user_attr(
                trial._trial_id, "environment_failure", f"its worker (pid {identity['pid']}) died"
            )
            if not storage.set_trial_state_values(trial._trial_id, state=TrialState.FAIL):
                continue
        except UpdateFinishedTrialError:
            continue  # another worker got there first
        close_dead_trial(config)(study, copy.deepcopy(storage.get_trial(trial._trial_id)))
        dead.append(trial.number)
    return dead


def guarded(config, objective, worker: int, parent: str, log, failures: list[str]):
    """The objective Optuna calls: the trial records which process runs it; a failure of the
    environment is recorded as such, with a waiting retry, and noted in `failures`."""
    where = Path(config.output_dir) / "trials"

    def run(trial: optuna.Trial):
        trial.set_user_attr("worker", f"{socket.gethostname()}:{os.getpid()}:{worker}")
        trial.set_user_attr("worker_process", process_identity())
        try:
            return objective(config, trial, parent, log)
        except BaseException as error:
            cause = environment_cause(error, where)
            if cause is None:
                raise
            trial.set_user_attr("environment_failure", cause)
            retry_trial(trial.study, trial.study._storage.get_trial(trial._trial_id))
            if cause == INTERRUPTED:
                raise KeyboardInterrupt from None  # Optuna fails the trial on it (not on SystemExit)
            failures.append(f"trial {trial.number}: {cause}")
            raise

    return run


def waiting_retries(study: optuna.Study) -> list[tuple[int, str]]:
    """(trial number, cause) of each failed trial whose retry is still waiting to run."""
    trials = study.get_trials(deepcopy=False)
    causes = {t.number: t.user_attrs.get("environment_failure", "its worker died") for t in trials}
    return [
        (t.system_attrs["retry_history"][-1], causes.get(t.system_attrs["retry_history"][-1], ""))
        for t in trials
        if t.state == TrialState.WAITING and t.system_attrs.get("retry_history")
    ]
