"""kill -9 in the middle of training, then --resume: same MLflow run, steps continue, same data."""

import json
import os
import signal
import subprocess
import sys
import time

import mlflow
import torch

STEPS = 24  # tiny steps take a fraction of a second: enough of them that the kill lands mid-run


def test_kill_then_resume(tmp_path, mlflow_server):
    out = tmp_path / "run"
    args = [
        sys.executable,
        "-m",
        "harness.cli",
        "train",
        "--profile",
        "tiny",
        "--output-dir",
        str(out),
        "--tracking-uri",
        mlflow_server,
        "--run.steps",
        str(STEPS),
        "--run.checkpoint_every",
        "2",
        "--rollout.prompts_per_step",
        "8",
        "--algo.mini_batches",
        "2",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    last = out / "checkpoints" / "last.ckpt"
    deadline = time.time() + 300
    while not last.is_file():
        assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
        assert time.time() < deadline
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (out / "summary.json").exists()
    run_id = json.loads((out / "run_state.json").read_text())["mlflow_run_id"]
    done = torch.load(last, weights_only=False)["epoch"] + 1  # RL steps the checkpoint holds

    assert done < STEPS
    resumed = subprocess.run([*args, "--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mlflow_run_id"] == run_id
    assert [h["step"] for h in summary["history"]] == list(range(STEPS))
    assert summary["heldout_before"] is not None  # carried over from the first process

    client = mlflow.MlflowClient(mlflow_server)
    steps = {m.step for m in client.get_metric_history(run_id, "reward_mean")}
    assert steps == set(range(STEPS))
    assert client.get_run(run_id).info.status == "FINISHED"


def test_resume_without_checkpoint_is_one_line_error(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "train",
            "--profile",
            "tiny",
            "--output-dir",
            str(tmp_path / "x"),
            "--resume",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "no checkpoint" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
