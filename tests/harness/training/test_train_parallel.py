"""Several `harness train` at once: one fresh tracking store shared by 4 processes, one output
directory claimed by two (the second is refused, the first is unharmed)."""

import json
import subprocess
import sys
import time

import mlflow

import harness.training.train  # noqa: F401  (imported now: the in-process claim below answers in well under a second)
from harness.cli import main

STEPS = 3
ARGS = ["--profile", "tiny", "--run.steps", str(STEPS), "--rollout.prompts_per_step", "4", "--algo.mini_batches", "1"]


def harness_train(*extra):
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "train", *ARGS, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_four_runs_into_one_fresh_sqlite_store(tmp_path):
    uri = f"sqlite:///{tmp_path}/store/mlflow.db"  # neither the folder nor the file exists yet
    procs = [
        harness_train("--output-dir", str(tmp_path / f"run{i}"), "--tracking-uri", uri, "--run.seed", str(i))
        for i in range(4)
    ]
    outputs = [p.communicate(timeout=600) for p in procs]
    for proc, (_, err) in zip(procs, outputs):
        assert proc.returncode == 0, err[-3000:]
        assert "Traceback" not in err
    client = mlflow.MlflowClient(uri)
    (experiment,) = [e for e in client.search_experiments() if e.name == "ce-gppo-harness"]
    runs = client.search_runs([experiment.experiment_id])
    assert len(runs) == 4 and {r.info.status for r in runs} == {"FINISHED"}
    for run in runs:
        for key in ("reward_mean", "entropy", "grad_norm"):
            steps = sorted(m.step for m in client.get_metric_history(run.info.run_id, key))
            assert steps == list(range(STEPS)), (key, steps)
    summaries = [json.loads((tmp_path / f"run{i}" / "summary.json").read_text()) for i in range(4)]
    assert {s["mlflow_run_id"] for s in summaries} == {r.info.run_id for r in runs}


def test_a_second_process_cannot_take_a_busy_output_dir(tmp_path, capsys):
    out, uri = tmp_path / "run", f"sqlite:///{tmp_path}/mlflow.db"
    long = 60  # still running when the second claim (in this process: no start-up to wait for) is refused
    first = harness_train("--output-dir", str(out), "--tracking-uri", uri, "--run.steps", str(long))
    deadline = time.time() + 300
    while not (out / "run_state.json").is_file():  # the first one owns the folder and its run
        assert first.poll() is None, first.stderr.read()[-3000:]
        assert time.time() < deadline
        time.sleep(0.05)
    assert main(["train", *ARGS, "--output-dir", str(out), "--tracking-uri", uri]) == 2
    refusal = capsys.readouterr().err
    assert f"is in use by another harness train (pid {first.pid})" in refusal and len(refusal.splitlines()) == 1
    assert first.poll() is None
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    state = json.loads((out / "run_state.json").read_text())
    assert summary["mlflow_run_id"] == state["mlflow_run_id"] and summary["steps_completed"] == long
    steps = [json.loads(line)["step"] for line in (out / "rollouts.jsonl").read_text().splitlines()]
    assert sorted(set(steps)) == list(range(long)) and len(steps) == long * 16
