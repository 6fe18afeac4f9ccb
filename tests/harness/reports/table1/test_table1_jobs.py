"""`harness table1` around its jobs, with fake children instead of trainings: an unusable or busy
output folder, a failed job, Ctrl-C / SIGTERM, a SIGKILLed table1, a training folder held by a live
`harness train`, --jobs, and a password in the tracking URI. Each runs in seconds.

The fake child (FAKE below) stands in for `python -m harness.reports.table1.child_command train ... --then
eval ...` and `... eval ...`: it records its start, its argv and the tracking URI it got from its
environment, prints that URI (the log must show it masked), fails when FAKE_CHILD says so, sleeps, and
records a SIGTERM."""

import errno
import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from harness.cli import main
from harness.profiles import PROFILES
from harness.reports.table1 import child_command as child
from harness.reports.table1 import reproduce as table1
from harness.reports.table1.jobs import Runner
from harness.reports.table1.rows import ROWS
from harness.tracking import RetryingClient, check_store, get_or_create_experiment

FAKE = r"""
import json, os, signal, sys, time
kind, where = sys.argv[1], " ".join(sys.argv[2:])
uri = os.environ.get("HARNESS_TABLE1_TRACKING_URI", "")
rule = json.loads(os.environ.get("FAKE_CHILD", "{}"))

def record(**what):
    with open(os.environ["FAKE_RECORD"], "a") as sink:
        sink.write(json.dumps({"pid": os.getpid(), "kind": kind, "t": time.time(), **what}) + "\n")

def stopped(signum, frame):  # as harness train: close the run (taking a while), then exit
    record(event="sigterm")
    time.sleep(float(rule.get("cleanup", 0)))
    record(event="closed")
    sys.exit(143)

signal.signal(signal.SIGTERM, stopped)
record(event="start", argv=sys.argv, uri=uri)
print(f"pid {os.getpid()}: {kind} tracked at {uri}", flush=True)
if kind == "train" and rule.get("fail") and rule["fail"] in where:
    print(f"harness train: error: run.output_dir is broken (store {uri})", file=sys.stderr, flush=True)
    print("a later line that is not the error", flush=True)
    sys.exit(2)
time.sleep(float(rule.get("sleep", 0)))
"""
GRPO = next(r for r in ROWS if r.label == "GRPO")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """One SQLite store for the module (creating one costs seconds); fakes never write to it."""
    uri = f"sqlite:///{tmp_path_factory.mktemp('store')}/mlflow.db"
    check_store(uri)
    for name in (table1.TRAIN_EXPERIMENT, table1.EVAL_EXPERIMENT):
        get_or_create_experiment(RetryingClient(uri), name, uri)
    return uri


@pytest.fixture
def fake(tmp_path, monkeypatch, store, capsys):
    """run(*flags) -> (exit status, stdout, stderr) of an in-process `harness table1` on the tiny
    profile (1 seed: base + 4 trained rows) whose children are FAKE; records() -> the fakes' records."""
    script, record = tmp_path / "fake_child.py", tmp_path / "record.jsonl"
    script.write_text(FAKE)
    monkeypatch.setattr(table1, "CHILD", [sys.executable, str(script)])
    monkeypatch.setattr(table1, "base_model", lambda profile: ("tiny", "base0", "tiny (no warm start)"))
    monkeypatch.setenv("FAKE_RECORD", str(record))
    previous = signal.getsignal(signal.SIGTERM)  # main() turns SIGTERM into KeyboardInterrupt

    def run(*flags, out=tmp_path / "out", uri=store):
        base = ["table1", "--profile", "tiny", "--seeds", "1", "--steps", "2", "--limit", "2", "--jobs", "2"]
        code = main([*base, "--output-dir", str(out), "--tracking-uri", uri, *flags])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    def records():
        return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []

    yield run, records
    signal.signal(signal.SIGTERM, previous)


def grpo_folder(out):
    return table1.train_config(PROFILES["tiny"], table1.Job(GRPO, 0), 2, out, "sqlite://").run.output_dir


def hold(path, pid):
    """An flock on `path` with `pid` written in it, as harness train / table1 hold theirs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+")
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    handle.write(str(pid))
    handle.flush()
    return handle


@pytest.mark.parametrize("problem", ["a file", "read-only"])
def test_an_unusable_output_folder_is_refused_before_any_job(problem, fake, tmp_path, monkeypatch):
    run, records = fake
    out = tmp_path / "out"
    if problem == "a file":
        out.write_text("not a folder")
    elif os.geteuid() != 0:
        out.mkdir()
        out.chmod(0o555)
    else:  # root writes anywhere: the probe table1 makes meets what a read-only mount answers
        real = tempfile.TemporaryFile

        def read_only(*args, dir=None, **kwargs):
            if dir is not None and str(dir).startswith(str(out)):
                raise OSError(errno.EROFS, "Read-only file system")
            return real(*args, dir=dir, **kwargs)

        monkeypatch.setattr(tempfile, "TemporaryFile", read_only)
    code, _, err = run()
    assert code == 2 and err.count("\n") == 1 and str(out) in err, err
    assert "not a directory" in err if problem == "a file" else "Read-only" in err or "Permission" in err
    assert records() == []  # no job ran


def test_a_failed_job_exits_1_naming_the_row_its_own_error_and_log(fake, monkeypatch, tmp_path):
    run, records = fake
    monkeypatch.setenv("FAKE_CHILD", json.dumps({"fail": "GRPO-seed0"}))
    code, out, err = run()
    assert code == 1, err
    grpo = next(line for line in err.splitlines() if "GRPO seed 0" in line)
    assert "train failed: harness train: error: run.output_dir is broken" in grpo  # its error, not its last line
    log = Path(re.search(r"\(log: (.+)\)$", grpo)[1])
    assert log.parent == tmp_path / "out" / "logs" and "a later line that is not the error" in log.read_text()
    markdown = (tmp_path / "out" / "table1.md").read_text()
    assert "**Missing from this table**" in markdown and "- GRPO seed 0: train failed: harness train: error" in markdown
    # every child wrote a log of its own: one file per process, only its own lines
    starts = [r for r in records() if r["event"] == "start"]
    logs = list((tmp_path / "out" / "logs").iterdir())
    assert len(logs) == len(starts) == 5  # the base row's evaluation + 4 trainings, each evaluating in its process
    for path in logs:
        assert len({line.split(":")[0] for line in path.read_text().splitlines() if line.startswith("pid ")}) == 1


@pytest.mark.parametrize("jobs", [1, 2])
def test_sigterm_stops_every_job_within_seconds_and_starts_none(jobs, fake, monkeypatch):
    run, records = fake
    monkeypatch.setenv("FAKE_CHILD", json.dumps({"sleep": 20, "cleanup": 1.5}))
    sent = []

    def terminate_when_all_run():
        deadline = time.time() + 60
        while len([r for r in records() if r["event"] == "start"]) < jobs and time.time() < deadline:
            time.sleep(0.05)
        sent.append(time.time())
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=terminate_when_all_run, daemon=True).start()
    code, out, err = run("--jobs", str(jobs))
    assert code == 130 and "run the same command again to continue" in err
    assert time.time() - sent[0] < 10
    starts = [r for r in records() if r["event"] == "start"]
    assert len(starts) == jobs and all(r["t"] < sent[0] for r in starts)  # no job started after the signal
    # each child got one SIGTERM and the time to close its run: none was SIGKILLed in the middle
    assert sorted(r["pid"] for r in records() if r["event"] == "sigterm") == sorted(r["pid"] for r in starts)
    assert sorted(r["pid"] for r in records() if r["event"] == "closed") == sorted(r["pid"] for r in starts)
    assert "SIGKILL" not in out
    for pid in (r["pid"] for r in starts):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_sigkilled_table1_leaves_no_child_running(tmp_path):
    """SIGKILL of the main process only: its children get SIGTERM from the kernel (die_with_parent)."""
    (tmp_path / "fake.py").write_text(FAKE)
    driver = f"""
import functools, os, sys
from pathlib import Path
from harness.reports.table1.jobs import Runner
runner = Runner(2)
def job(i):
    argv = [sys.executable, {str(tmp_path / "fake.py")!r}, "train"]
    runner.call("train", argv, Path({str(tmp_path)!r}) / f"{{i}}.log", dict(os.environ))
runner.run([(i, functools.partial(job, i)) for i in range(2)])
"""
    record = tmp_path / "record.jsonl"
    env = {**os.environ, "FAKE_RECORD": str(record), "FAKE_CHILD": json.dumps({"sleep": 60})}
    proc = subprocess.Popen([sys.executable, "-c", driver], env=env)
    deadline = time.time() + 60

    def events(name):
        lines = record.read_text().splitlines() if record.exists() else []
        return [json.loads(line)["pid"] for line in lines if json.loads(line)["event"] == name]

    while len(events("start")) < 2:
        assert proc.poll() is None and time.time() < deadline
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    deadline = time.time() + 10
    while set(events("sigterm")) != set(events("start")):
        assert time.time() < deadline, "a child lives on after its table1 was SIGKILLed"
        time.sleep(0.05)


def test_a_training_folder_held_by_a_live_harness_train_is_waited_for(fake, tmp_path, monkeypatch):
    run, records = fake
    lock = hold(Path(grpo_folder(tmp_path / "out")) / ".lock", 4242)
    released, waiting = [], threading.Event()
    wait_for_run_dir = Runner.wait_for_run_dir

    def watched(runner, folder):  # says when table1 has started to wait (a fixed sleep raced a busy machine)
        log = runner.log
        runner.log = lambda message: (log(message), waiting.set())
        try:
            return wait_for_run_dir(runner, folder)
        finally:
            runner.log = log

    monkeypatch.setattr(Runner, "wait_for_run_dir", watched)

    def release():
        waiting.wait(120)
        time.sleep(1.5)  # a poll or two of the waiting loop
        released.append(time.time())
        lock.close()

    threading.Thread(target=release, daemon=True).start()
    _, out, _ = run()
    assert "is in use by a harness train (pid 4242)" in out and "waiting for it to end" in out
    starts = [r for r in records() if r["event"] == "start" and r["kind"] == "train"]
    grpo = [r for r in starts if "GRPO-seed0" in " ".join(r["argv"])]
    assert len(grpo) == 1 and grpo[0]["t"] >= released[0]


def test_a_second_table1_on_the_same_output_folder_is_refused_at_once(fake, tmp_path):
    run, records = fake
    lock = hold(tmp_path / "out" / ".table1.lock", 4343)
    try:
        code, _, err = run()
    finally:
        lock.close()
    assert code == 2 and err.count("\n") == 1 and "in use by another harness table1 (pid 4343)" in err
    assert str(tmp_path / "out") in err and records() == []


def test_jobs_beyond_the_plan_are_capped_with_a_note(fake):
    run, _ = fake
    _, out, _ = run("--jobs", "1000")
    assert "5 jobs, 5 at a time (--jobs 1000 capped to the number of jobs)" in out


def test_a_password_in_the_tracking_uri_is_never_shown_written_or_in_argv(fake, store, monkeypatch, tmp_path):
    run, records = fake
    monkeypatch.setenv("FAKE_CHILD", json.dumps({"fail": "GRPO-seed0"}))  # its error line holds the URI
    uri = store + "?password=S3cret"  # SQLite ignores the parameter; redact() masks it
    code, out, err = run(uri=uri)
    assert code == 1 and "S3cret" not in out + err and "password=***" in out
    for path in (tmp_path / "out").rglob("*"):
        assert path.is_dir() or b"S3cret" not in path.read_bytes(), path
    starts = [r for r in records() if r["event"] == "start"]
    assert starts and all(r["uri"] == uri and "S3cret" not in " ".join(r["argv"]) for r in starts)


@pytest.mark.parametrize("command", ["train", "eval"])
def test_the_child_hands_the_uri_from_its_environment_to_the_command(command, monkeypatch):
    got = []
    monkeypatch.setattr("harness.cli.main", lambda argv: got.append(argv) or 0)
    monkeypatch.setenv(child.HANDED_URI_ENV, "postgresql://u:S3cret@db/x #1")
    assert child.main([command, "--k=1"]) == 0 and child.HANDED_URI_ENV not in os.environ  # not inherited further
    flag = got[0][-1]
    if command == "eval":  # read as YAML there: a JSON string reads back exactly
        from harness.dataclass_config import parse_value

        assert parse_value(flag.removeprefix("--tracking-uri=")) == "postgresql://u:S3cret@db/x #1"
    else:
        assert flag == "--tracking-uri=postgresql://u:S3cret@db/x #1"


def test_a_trained_job_evaluates_in_its_training_process_and_the_base_row_evaluates_alone(fake):
    run, records = fake
    run()
    starts = [r["argv"][1:] for r in records() if r["event"] == "start"]
    trained = [argv for argv in starts if argv[0] == "train"]
    assert len(starts) == 5 and len(trained) == 4  # base + 4 trained rows, one child each
    assert all(argv.count(child.THEN) == 1 and argv[argv.index(child.THEN) + 1] == "eval" for argv in trained)
    assert [argv for argv in starts if argv[0] == "eval" and child.THEN not in argv]  # the base row


def test_the_child_runs_its_commands_in_turn_and_stops_at_the_first_failure(monkeypatch):
    got, codes = [], {"train": 0, "eval": 0}
    monkeypatch.setattr("harness.cli.main", lambda argv: got.append(argv) or codes[argv[0]])
    monkeypatch.setenv(child.HANDED_URI_ENV, "sqlite:///x.db")
    assert child.main(["train", "--config", "j.yaml", child.THEN, "eval", "--k=1"]) == 0
    assert [argv[0] for argv in got] == ["train", "eval"] and all(a[-1].startswith("--tracking-uri=") for a in got)
    got.clear()
    codes["train"] = 2
    monkeypatch.setenv(child.HANDED_URI_ENV, "sqlite:///x.db")
    assert child.main(["train", "--config", "j.yaml", child.THEN, "eval", "--k=1"]) == 2 and len(got) == 1
    with pytest.raises(SystemExit, match="empty command"):
        child.main(["train", child.THEN])


def test_a_failed_part_of_a_two_command_child_is_named(tmp_path):
    from harness.reports.table1.jobs import JobFailed, _failed_part

    assert _failed_part("train + eval", "harness eval: error: no such suite") == "eval"
    assert _failed_part("train + eval", "harness train: error: bad") == "train"
    assert _failed_part("train + eval", "killed by signal 9, no output") == "train + eval"
    assert str(JobFailed("eval", "x", tmp_path / "l.log")).startswith("eval failed: x")


def test_the_quoted_error_is_the_childs_error_line_or_its_exception(tmp_path):
    from harness.reports.table1.jobs import error_line

    log = tmp_path / "x.log"
    log.write_text(
        "step 1\nTraceback (most recent call last):\n  File 'x'\n    f()\nValueError: bad at s://u:pw@h\nmore\n"
    )
    assert error_line(log, 1) == "ValueError: bad at s://u:***@h"  # the exception, not the last line
    log.write_text("harness eval: error: --k=0 is out of range\nExiting\n")
    assert error_line(log, 2) == "harness eval: error: --k=0 is out of range"
    log.write_text("")
    assert error_line(log, -9) == "killed by signal 9, no output"
