"""Training with rollout.staleness: K = 0 is the synchronous loop bit for bit; K >= 1 end to end, with
dynamic sampling, both corrections, DDP, a killed worker, a killed trainer, and --resume."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import mlflow
import pytest
import torch

from algorithms import MISMATCH_VARIANTS
from harness.models import load_model
from harness.schema import load_train_config
from harness.training.train import train
from harness.training.update_rules import correction_for

SMALL = {"rollout.prompts_per_step": 8, "algo.mini_batches": 2}
# sha256 of the weights after 3 steps of the config in test_k0_is_the_synchronous_loop_bit_for_bit, computed
# with the code before asynchronous rollouts existed (commit d9631ab, torch 2.13.0 CPU, this machine).
SYNCHRONOUS_DIGEST = "aa0970627fd0d6a43891965022a6a3defda36656ead4116db081ec13189c09f1"


def config_at(tmp_path, name, **overrides):
    out = tmp_path / name
    return load_train_config(
        "tiny",
        None,
        {"run.output_dir": str(out), "run.tracking_uri": f"sqlite:///{tmp_path}/m.db", **SMALL, **overrides},
    )


def weights_digest(folder: Path) -> str:
    model, _ = load_model(str(folder))
    digest = hashlib.sha256()
    for name, value in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(value.detach().float().numpy().tobytes())
    return digest.hexdigest()


def test_k0_is_the_synchronous_loop_bit_for_bit(tmp_path):
    config = config_at(tmp_path, "k0", **{"run.steps": 3, "warmstart.steps": 0, "run.checkpoint_every": 100})
    assert config.rollout.staleness == 0
    train(config, log=lambda *a: None)
    assert weights_digest(tmp_path / "k0" / "model") == SYNCHRONOUS_DIGEST


def history(folder: Path) -> list[dict]:
    return json.loads((folder / "summary.json").read_text())["history"]


@pytest.mark.parametrize("correction", ["decoupled", "behaviour"])
def test_k2_lags_follow_the_schedule_and_are_logged(tmp_path, correction):
    config = config_at(
        tmp_path, "k2", **{"run.steps": 5, "rollout.staleness": 2, "rollout.staleness_correction": correction}
    )
    train(config, log=lambda *a: None)
    steps = history(tmp_path / "k2")
    assert [h["staleness_max"] for h in steps] == [0, 1, 2, 2, 2]
    for h in steps:
        lag = min(2, h["step"])
        assert h["staleness_mean"] == lag and h[f"staleness_lag{lag}"] == 1.0
        assert sum(h[f"staleness_lag{k}"] for k in range(3)) == pytest.approx(1.0)
        assert h["behaviour_ratio_max"] >= h["behaviour_ratio_mean"] > 0
        assert "behaviour_out_high" in h and "clip_frac_low" in h and h["worker_seconds"] > 0
    # at lag 0 the behaviour policy is the proximal one: ratios are 1 (up to the KV cache's float error)
    assert steps[0]["behaviour_ratio_max"] == pytest.approx(1.0, abs=1e-4)
    assert steps[0]["behaviour_ratio_mean"] == pytest.approx(1.0, abs=1e-5)
    assert ("behaviour_cap_frac" in steps[0]) == (correction == "decoupled")


def test_dynamic_sampling_extra_batches_come_from_the_newest_version(tmp_path):
    overrides = {
        "run.steps": 4,
        "rollout.staleness": 1,
        "algo.dynamic_sampling": True,
        "algo.max_gen_batches": 3,
        "rollout.gen_batch_prompts": 8,
    }
    train(config_at(tmp_path, "ds", **overrides), log=lambda *a: None)
    steps = history(tmp_path / "ds")
    assert len(steps) == 4 and all(h["gen_batches"] >= 1 for h in steps)
    for h in steps[1:]:
        # the step's first generation batch is one version old, its extra ones are fresh
        assert h["staleness_max"] <= 1 and h["staleness_lag0"] + h["staleness_lag1"] == pytest.approx(1.0)
        if h["gen_batches"] == 1:
            assert h["staleness_lag1"] == 1.0


# ----------------------------------------------------------------------------- processes
def children_of(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of the live child processes of `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append((int(entry.name), cmdline))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def train_args(out: Path, uri: str, steps: int, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "harness.cli", "train", "--profile", "tiny", "--output-dir", str(out),
        "--tracking-uri", uri, "--run.steps", str(steps), "--run.checkpoint_every", "2",
        "--rollout.prompts_per_step", "8", "--algo.mini_batches", "2", "--rollout.staleness", "1", *extra,
    ]  # fmt: skip


def start_until_worker(args: list[str], out: Path, steps_done: int) -> tuple[subprocess.Popen, list[int]]:
    """Start a run; once it holds a checkpoint past `steps_done` steps return it and its children's pids."""
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    last, deadline = out / "checkpoints" / "last.ckpt", time.time() + 300
    while True:
        assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
        assert time.time() < deadline
        workers = [pid for pid, cmd in children_of(proc.pid) if "spawn_main" in cmd]
        if workers and last.is_file() and torch.load(last, weights_only=False)["epoch"] + 1 >= steps_done:
            return proc, [pid for pid, _ in children_of(proc.pid)]
        time.sleep(0.05)


def wait_gone(pids: list[int], seconds: float = 15) -> list[int]:
    deadline = time.time() + seconds
    while time.time() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def test_killed_worker_ends_the_run_in_one_line_and_resume_finishes_it(tmp_path):
    out, uri, steps = tmp_path / "run", f"sqlite:///{tmp_path}/mlflow.db", 7
    args = train_args(out, uri, steps)
    proc, children = start_until_worker(args, out, steps_done=2)
    worker = next(pid for pid, cmd in children_of(proc.pid) if "spawn_main" in cmd)
    os.kill(worker, signal.SIGKILL)
    stderr = proc.communicate(timeout=120)[1].decode()
    assert proc.returncode == 2, stderr[-3000:]
    assert "Traceback" not in stderr
    assert (
        f"harness train: error: the rollout worker of rank 0 (pid {worker}) died (killed by signal 9); "
        "the checkpoints are kept: --resume continues the run" in stderr.splitlines()
    )
    assert not wait_gone(children)  # nothing left behind: the worker and spawn's resource tracker
    run_id = json.loads((out / "run_state.json").read_text())["mlflow_run_id"]
    client = mlflow.MlflowClient(uri)
    assert client.get_run(run_id).info.status == "FAILED"
    resumed_at = torch.load(out / "checkpoints" / "last.ckpt", weights_only=False)["epoch"] + 1

    finished = subprocess.run([*args, "--resume"], capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr[-3000:]
    steps_logged = history(out)
    assert [h["step"] for h in steps_logged] == list(range(steps))
    # a resumed run starts its pipeline afresh: the first batch is generated by the resumed weights
    lags = [h["staleness_max"] for h in steps_logged]
    assert lags[resumed_at] == 0 and all(lag == 1 for lag in lags[resumed_at + 1 :])
    assert client.get_run(run_id).info.status == "FINISHED"


def test_a_killed_trainer_takes_its_worker_with_it(tmp_path):
    out = tmp_path / "run"
    proc, children = start_until_worker(train_args(out, f"sqlite:///{tmp_path}/m.db", 200), out, steps_done=2)
    os.kill(proc.pid, signal.SIGKILL)  # no clean-up code runs in the trainer
    proc.wait()
    assert not wait_gone(children)


def test_ddp_each_rank_has_its_worker(tmp_path):
    out, uri = tmp_path / "ddp", f"sqlite:///{tmp_path}/m.db"
    args = [*train_args(out, uri, 3), "--run.devices", "2", "--run.threads", "1"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    steps = history(out)
    assert [h["staleness_max"] for h in steps] == [0, 1, 1]
    assert all(h["behaviour_ratio_mean"] > 0 for h in steps)


def test_a_run_stopped_in_process_leaves_no_worker(tmp_path):
    """A sweep's pruned trial ends its run by raising StopRun: its worker stops with it."""
    import lightning as L
    import torch.multiprocessing as mp

    from harness.training.train import StopRun

    class PruneAtStep2(L.Callback):
        def on_train_epoch_end(self, trainer, module):
            if trainer.current_epoch == 2:
                assert module.rollouts.worker.process.is_alive()
                raise StopRun("pruned")

    config = config_at(tmp_path, "p", **{"run.steps": 6, "rollout.staleness": 1})
    with pytest.raises(StopRun):
        train(config, log=lambda *a: None, callbacks=[PruneAtStep2()])
    assert not [p for p in mp.active_children() if p.name.startswith("rollout-worker")]


@pytest.mark.parametrize("variant", MISMATCH_VARIANTS)
def test_every_mismatch_correction_trains_at_staleness_1_and_logs_its_figures(tmp_path, variant):
    """rollout.mismatch on stale rollouts: the weight of pi_prox / pi_behaviour is the variant's, and its figures
    (share masked, weight mean / max) reach the history and MLflow."""
    config = config_at(tmp_path, variant, **{"run.steps": 2, "rollout.staleness": 1, "rollout.mismatch": variant})
    assert correction_for(config.rollout).name == "mismatch"
    train(config, log=lambda *a: None)
    steps = history(tmp_path / variant)
    assert len(steps) == 2
    for h in steps:
        assert 0 <= h["mismatch_masked_frac"] <= 1 and h["mismatch_weight_max"] >= h["mismatch_weight_mean"] >= 0
        assert h["mismatch_ratio_max"] >= h["mismatch_ratio_mean"] > 0
    # at lag 0 (step 0) the behaviour policy is pi_prox: every ratio is 1 up to float error, nothing is masked
    # but by geometric_mask's +-0.1% band, which the float error stays well inside
    assert steps[0]["mismatch_masked_frac"] == 0.0
    run_id = json.loads((tmp_path / variant / "summary.json").read_text())["mlflow_run_id"]
    run = mlflow.MlflowClient(config.run.tracking_uri).get_run(run_id)
    assert {"mismatch_masked_frac", "mismatch_weight_mean", "mismatch_weight_max"} <= set(run.data.metrics)
