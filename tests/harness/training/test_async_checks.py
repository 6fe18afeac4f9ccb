"""The asynchronous worker's machine checks (harness.training.async_checks): threads, device and /dev/shm
are refused in one line before any work, instead of failing inside the worker or in share_memory_()."""

import pytest
import torch

from harness.common.errors import ConfigError
from harness.schema import load_train_config
from harness.training import async_checks
from harness.training.async_checks import check_shared_memory, check_worker_settings
from harness.training.rollout_worker import shared_copy
from harness.training.train import train


def config_with(tmp_path, **overrides):
    return load_train_config(
        "tiny",
        None,
        {
            "run.steps": 1,
            "rollout.prompts_per_step": 4,
            "rollout.group_size": 2,
            "algo.mini_batches": 1,
            "rollout.staleness": 1,
            "run.output_dir": str(tmp_path / "run"),
            "run.tracking_uri": f"sqlite:///{tmp_path}/ml.db",
            **overrides,
        },
    )


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"rollout.worker_threads": 100_000}, "rollout.worker_threads=100000 is more than 4 per CPU core"),
        ({"rollout.worker_device": "tpu"}, "rollout.worker_device='tpu' is not a device"),
        ({"rollout.worker_device": "meta"}, "rollout.worker_device='meta': the rollout worker generates on cpu"),
        ({"rollout.worker_device": "cuda:99"}, "rollout.worker_device='cuda:99': this machine has"),
    ],
)
def test_bad_worker_settings_fail_before_the_run_exists(overrides, message, tmp_path):
    with pytest.raises(ConfigError, match=message) as info:
        train(config_with(tmp_path, **overrides), log=lambda *a: None)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "run").exists() and not (tmp_path / "ml.db").exists()  # no folder, no MLflow run


def test_the_thread_bound_follows_the_cores(tmp_path, monkeypatch):
    monkeypatch.setattr(async_checks, "cpu_cores", lambda: 3)
    check_worker_settings(config_with(tmp_path, **{"rollout.worker_threads": 12}))
    with pytest.raises(ConfigError, match=r"allowed: 1 \.\. 12"):
        check_worker_settings(config_with(tmp_path, **{"rollout.worker_threads": 13}))


def test_good_devices_pass(tmp_path):
    check_worker_settings(config_with(tmp_path, **{"rollout.worker_device": "cpu"}))
    if torch.cuda.is_available():
        check_worker_settings(config_with(tmp_path, **{"rollout.worker_device": "cuda:0"}))


def test_a_shared_memory_too_small_for_the_weights_is_one_line(monkeypatch):
    tied = torch.zeros(100)  # 400 bytes, counted once though two names share it
    state = {"embed": tied, "head": tied, "bias": torch.zeros(25)}  # 500 bytes in all
    monkeypatch.setattr(async_checks, "shared_memory_free", lambda: 499)
    with pytest.raises(ConfigError) as info:
        shared_copy(state)
    assert str(info.value).startswith("/dev/shm has 499 bytes free but the rollout worker's weight buffer needs 500")
    monkeypatch.setattr(async_checks, "shared_memory_free", lambda: 500)
    check_shared_memory(state)
    monkeypatch.setattr(async_checks, "shared_memory_free", lambda: None)  # no /dev/shm: left to the OS
    check_shared_memory(state)


def test_the_trainer_says_what_it_waits_for_while_its_worker_is_stopped(monkeypatch, capsys):
    import signal
    import subprocess
    import time

    from harness.training import async_rollout

    monkeypatch.setattr(async_rollout, "STOPPED_NOTE_S", 0.0)
    stand_in = subprocess.Popen(["sleep", "30"])  # a process in the worker's place
    rollouts = object.__new__(async_rollout.AsyncRollouts)
    rollouts.process, rollouts.rank, rollouts.stopped_since, rollouts.noted = stand_in, 1, None, 0.0
    try:
        rollouts.note_if_stopped()
        assert capsys.readouterr().err == ""  # running: nothing to say
        stand_in.send_signal(signal.SIGSTOP)
        time.sleep(0.2)
        rollouts.note_if_stopped()
        err = capsys.readouterr().err
        assert f"the rollout worker of rank 1 (pid {stand_in.pid}), which is stopped: SIGCONT resumes it" in err
        stand_in.send_signal(signal.SIGCONT)
        time.sleep(0.2)
        rollouts.note_if_stopped()
        assert rollouts.stopped_since is None and capsys.readouterr().err == ""
    finally:
        stand_in.kill()
        stand_in.wait()
