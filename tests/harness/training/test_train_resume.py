"""SIGTERM or kill -9 in the middle of training, then --resume: same MLflow run, steps continue, same data."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import mlflow
import pytest
import torch

from harness.cli import main

STEPS = 24  # tiny steps take a fraction of a second: enough of them that the kill lands mid-run


def test_sigterm_then_resume(tmp_path, mlflow_server):
    """SIGTERM (what table1 and sweeps send, and `kill`) ends the run KILLED with exit 130 and the line
    "interrupted"; --resume continues the same MLflow run. (SIGKILL: test_killed_twice_...)"""
    out = tmp_path / "run"
    args = train_args(out, mlflow_server, STEPS, every=2)
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    last = out / "checkpoints" / "last.ckpt"
    deadline = time.time() + 300
    while not last.is_file():
        assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
        assert time.time() < deadline
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGTERM)
    stderr = proc.communicate(timeout=120)[1].decode()
    assert proc.returncode == 130 and "harness train: interrupted" in stderr, stderr[-3000:]
    assert not (out / "summary.json").exists()
    run_id = json.loads((out / "run_state.json").read_text())["mlflow_run_id"]
    client = mlflow.MlflowClient(mlflow_server)
    assert client.get_run(run_id).info.status == "KILLED"
    done = torch.load(last, weights_only=False)["epoch"] + 1  # RL steps the checkpoint holds

    assert done < STEPS
    resumed = subprocess.run([*args, "--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mlflow_run_id"] == run_id
    assert [h["step"] for h in summary["history"]] == list(range(STEPS))
    assert summary["heldout_before"] is not None  # carried over from the first process

    steps = {m.step for m in client.get_metric_history(run_id, "reward_mean")}
    assert steps == set(range(STEPS))
    assert client.get_run(run_id).info.status == "FINISHED"


def harness(argv: list[str], capsys) -> tuple[int, str, str]:
    """`harness ARGV` in this process (a python start-up costs seconds): (exit status, stdout, stderr)."""
    code = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_resume_without_checkpoint_is_one_line_error(tmp_path, capsys):
    code, _, err = harness(["train", "--profile", "tiny", "--output-dir", tmp_path / "x", "--resume"], capsys)
    assert code == 2 and "no checkpoint" in err and len(err.strip().splitlines()) == 1


def train_args(out, uri, steps, every):
    return [
        sys.executable,
        "-m",
        "harness.cli",
        "train",
        "--profile",
        "tiny",
        "--output-dir",
        str(out),
        "--tracking-uri",
        uri,
        "--run.steps",
        str(steps),
        "--run.checkpoint_every",
        str(every),
        "--rollout.prompts_per_step",
        "8",
        "--algo.mini_batches",
        "2",
        "--run.rollout_samples",
        "3",
    ]


def logged_steps(out) -> list[int]:
    try:
        lines = (out / "rollouts.jsonl").read_text().splitlines()
    except FileNotFoundError:
        return []
    steps = []
    for line in lines:
        try:
            steps.append(json.loads(line)["step"])
        except (json.JSONDecodeError, KeyError):
            pass
    return steps


def start_and_kill(args, out, until) -> None:
    """Start a run and SIGKILL it as soon as `until(out)` holds."""
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 300
    while not until(out):
        assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
        assert time.time() < deadline
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def test_killed_twice_past_a_checkpoint_every_step_is_recorded_once(tmp_path):
    out, uri, steps = tmp_path / "run", f"sqlite:///{tmp_path}/mlflow.db", 30
    args = train_args(out, uri, steps, every=4)
    last = out / "checkpoints" / "last.ckpt"
    # first kill: a few steps after the first checkpoint, so MLflow and rollouts.jsonl hold
    # steps the checkpoint does not
    start_and_kill(args, out, lambda o: last.is_file() and max(logged_steps(o), default=0) >= 6)
    resumed_at = torch.load(last, weights_only=False)["epoch"] + 1
    assert max(logged_steps(out)) >= resumed_at  # the window that is recomputed after resume
    start_and_kill([*args, "--resume"], out, lambda o: max(logged_steps(o), default=0) >= 14)
    finished = subprocess.run([*args, "--resume"], capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr[-3000:]

    run_id = json.loads((out / "run_state.json").read_text())["mlflow_run_id"]
    client = mlflow.MlflowClient(uri)
    for key in ("reward_mean", "entropy", "grad_norm"):
        recorded = sorted(m.step for m in client.get_metric_history(run_id, key))
        assert recorded == list(range(steps)), key  # every step once: no duplicates, none lost
    assert client.get_run(run_id).info.status == "FINISHED"
    rollout_steps = logged_steps(out)
    assert sorted(rollout_steps) == sorted(s for s in range(steps) for _ in range(3))
    summary = json.loads((out / "summary.json").read_text())
    assert [h["step"] for h in summary["history"]] == list(range(steps))
    assert not [p for p in out.rglob("*.tmp")]  # no temporary files left behind


def test_killed_before_any_checkpoint_the_run_is_closed_as_killed(tmp_path, capsys):
    out, uri = tmp_path / "run", f"sqlite:///{tmp_path}/mlflow.db"
    args = train_args(out, uri, steps=40, every=100)
    start_and_kill(args, out, lambda o: (o / "run_state.json").is_file())
    orphan = json.loads((out / "run_state.json").read_text())["mlflow_run_id"]
    code, stdout, err = harness([*args[3:], "--resume"], capsys)
    assert code == 2 and "holds no checkpoint" in err
    assert "marked the earlier run" in stdout  # a refused resume closes it too
    client = mlflow.MlflowClient(uri)
    assert client.get_run(orphan).info.status == "KILLED"
    code, _, err = harness([*args[3:-10], "--run.steps", "2", *args[-8:]], capsys)
    assert code == 0, err[-3000:]
    new_run = json.loads((out / "run_state.json").read_text())["mlflow_run_id"]
    assert new_run != orphan and client.get_run(new_run).info.status == "FINISHED"


def copy_of(finished_run, tmp_path) -> tuple:
    """A copy of the module's finished 4-step run folder, tracked in the same store (a resume may
    move the folder: run.output_dir is not part of what must match)."""
    out, uri = finished_run
    shutil.copytree(out, tmp_path / "run")
    return tmp_path / "run", uri


def test_damaged_last_checkpoint_falls_back_to_the_intact_one_beside_it(tmp_path, finished_run, capsys):
    out, uri = copy_of(finished_run, tmp_path)
    args = train_args(out, uri, steps=4, every=2)[3:]
    last = out / "checkpoints" / "last.ckpt"
    last.write_bytes(last.read_bytes()[: last.stat().st_size // 2])  # truncated by a full disk, say
    code, stdout, err = harness([*args[:-10], "--run.steps", "6", *args[-8:], "--resume"], capsys)
    assert code == 0, err[-3000:]
    assert "last.ckpt is damaged (truncated or not a torch checkpoint); resuming from rl-step3.ckpt" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert [h["step"] for h in summary["history"]] == list(range(6))
    for content in (b"", b"garbage" * 100):
        for ckpt in (out / "checkpoints").glob("*.ckpt"):
            ckpt.write_bytes(content)
        code, _, err = harness([*args, "--resume"], capsys)
        assert code == 2 and "holds only damaged checkpoints" in err
        assert "Traceback" not in err and "weights_only" not in err


@pytest.mark.parametrize(
    "change, message",
    [
        (["--loss", "grpo"], "loss.name: 'ce_gppo' -> 'grpo'"),
        (["--rollout.group_size", "4"], "rollout.group_size: 8 -> 4"),
        (["--run.seed", "3"], "run.seed: 0 -> 3"),
        (["--run.steps", "2"], "already holds 4 steps and run.steps=2"),
        (["--tracking-uri", "sqlite:///elsewhere.db"], "resume it with that --tracking-uri"),
    ],
)
def test_resume_refuses_another_run(change, message, tmp_path, finished_run, capsys, monkeypatch):
    out, uri = finished_run
    args = train_args(out, uri, steps=6, every=2)[3:]
    before = (out / "summary.json").read_bytes()
    monkeypatch.chdir(tmp_path)
    code, _, err = harness([*args, *change, "--resume"], capsys)
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1
    assert (out / "summary.json").read_bytes() == before  # nothing already written was touched


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("finished")
    out, uri = root / "run", f"sqlite:///{root}/mlflow.db"
    assert subprocess.run(train_args(out, uri, steps=4, every=2), capture_output=True).returncode == 0
    return out, uri


def test_killed_while_writing_the_final_model_resume_finishes_the_run(tmp_path, finished_run, capsys):
    out, uri = copy_of(finished_run, tmp_path)
    args = train_args(out, uri, steps=4, every=2)[3:]
    rollouts = (out / "rollouts.jsonl").read_text()
    # what a kill between the last checkpoint and the end leaves: no summary, a half model
    (out / "summary.json").unlink()
    for file in (out / "model").iterdir():
        file.unlink()
    run_id = json.loads((out / "run_state.json").read_text())["mlflow_run_id"]
    mlflow.MlflowClient(uri).set_terminated(run_id, "KILLED")
    code, _, err = harness([*args, "--resume"], capsys)
    assert code == 0, err[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "completed" and [h["step"] for h in summary["history"]] == [0, 1, 2, 3]
    assert (out / "model" / "config.json").is_file()
    assert (out / "rollouts.jsonl").read_text() == rollouts  # nothing lost, nothing repeated
    assert mlflow.MlflowClient(uri).get_run(run_id).info.status == "FINISHED"
    code, _, err = harness([*args, "--resume"], capsys)
    assert code == 2 and "already holds 4 steps" in err
