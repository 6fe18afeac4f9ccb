"""harness.training.run_dir: claiming an output directory, what a resume may change, the rollout log."""

import json
import subprocess
import sys

import pytest

from harness.common.errors import ConfigError
from harness.config_fields import added_keys, resumable_keys
from harness.schema import TrainConfig, load_train_config
from harness.training.run_dir import RolloutLog, RunDirectory


def config_for(path, **overrides):
    return load_train_config("tiny", None, {"run.output_dir": str(path), **overrides})


def test_claim_refuses_a_file_and_an_unwritable_place(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="is a file, not a directory"):
        RunDirectory(tmp_path / "file").claim()
    with pytest.raises(ConfigError, match="cannot write to run.output_dir='/proc/nope'"):
        RunDirectory("/proc/nope").claim()
    with pytest.raises(ConfigError, match="cannot write to"):
        RunDirectory(tmp_path / "file" / "below").claim()


HOLD = """
import sys, time
from harness.training.run_dir import RunDirectory
owned = RunDirectory(sys.argv[1])
owned.claim()  # held while `owned` lives
print("held", flush=True)
time.sleep(60)
"""


def test_a_live_owner_keeps_the_directory_and_a_dead_one_releases_it(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "run")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(ConfigError, match=rf"is in use by another harness train \(pid {holder.pid}\)"):
        RunDirectory(tmp_path / "run").claim()
    holder.kill()
    holder.wait()
    RunDirectory(tmp_path / "run").claim()  # a killed owner's lock is gone with its process


def test_claim_removes_temporaries_of_killed_writers(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / "checkpoints").mkdir()
    stale = tmp_path / "checkpoints" / f".last.ckpt.{int(dead.stdout)}.x1.tmp"
    stale.write_text("half")
    RunDirectory(tmp_path).claim()
    assert not stale.exists()


def test_resume_may_change_only_the_documented_keys(tmp_path):
    run_dir = RunDirectory(tmp_path)
    original = config_for(tmp_path, **{"run.tracking_uri": "sqlite:///a.db"})
    run_dir.write_config(original)
    run_dir.write_state("sqlite:///a.db", "e", "abc")
    allowed = {"run.steps": 900, "run.checkpoint_every": 7, "rollout.batch_size": 8, "algo.micro_batch_size": 4}
    assert set(allowed) <= set(resumable_keys(TrainConfig))
    run_dir.check_resumable(config_for(tmp_path, **{"run.tracking_uri": "sqlite:///a.db"}, **allowed), steps_done=5)
    with pytest.raises(ConfigError, match=r"optim.lr: 5e-05 -> 0.001.*Start a new --output-dir"):
        run_dir.check_resumable(config_for(tmp_path, **{"run.tracking_uri": "sqlite:///a.db", "optim.lr": 1e-3}), 5)
    with pytest.raises(ConfigError, match="tracked at sqlite:///a.db; resume it with that --tracking-uri"):
        run_dir.check_resumable(config_for(tmp_path), 5)
    same = config_for(tmp_path, **{"run.tracking_uri": "sqlite:///a.db"})
    with pytest.raises(ConfigError, match="already holds 601 steps and run.steps=600"):
        run_dir.check_resumable(same, 601)
    # All steps done but no summary yet: killed while writing the final model; a resume finishes it.
    run_dir.check_resumable(same, 600)
    run_dir.summary_file.write_text("{}")
    with pytest.raises(ConfigError, match="already holds 600 steps and run.steps=600"):
        run_dir.check_resumable(same, 600)


def test_resume_may_change_a_dict_field_key_by_key(tmp_path):
    """run.tags is resumable; the saved config flattens it into run.tags.<name>, which counts as run.tags."""
    run_dir = RunDirectory(tmp_path)
    run_dir.write_config(config_for(tmp_path, **{"run.tags": {"project": "betas"}}))
    run_dir.write_state("sqlite:///mlflow.db", "e", "abc")
    uri = {"run.tracking_uri": config_for(tmp_path).run.tracking_uri}
    run_dir.check_resumable(config_for(tmp_path, **uri, **{"run.tags": {"project": "other", "seed": "2"}}), 5)
    with pytest.raises(ConfigError, match="algo.clip_low"):
        run_dir.check_resumable(config_for(tmp_path, **uri, **{"algo.clip_low": 0.3}), 5)


def test_a_run_saved_before_a_later_key_existed_resumes_at_its_default(tmp_path):
    import yaml

    run_dir = RunDirectory(tmp_path)
    config = config_for(tmp_path, **{"run.tracking_uri": "sqlite:///a.db"})
    run_dir.write_config(config)
    run_dir.write_state("sqlite:///a.db", "e", "abc")
    saved = yaml.safe_load(run_dir.config_file.read_text())
    for key, default in added_keys(TrainConfig).items():  # what a run written before them holds: no such keys
        section, name = key.split(".")
        if saved[section][name] == default:  # (the tiny profile sets the warm start's schedule keys itself)
            del saved[section][name]
    run_dir.config_file.write_text(yaml.safe_dump(saved))
    run_dir.check_resumable(config, steps_done=5)
    # a run from before the warm start's schedule keys ran the old schedule (their defaults): another run
    del saved["warmstart"]["decay"]
    run_dir.config_file.write_text(yaml.safe_dump(saved))
    with pytest.raises(ConfigError, match=r"warmstart.decay: None -> 'cosine'"):
        run_dir.check_resumable(config, steps_done=5)
    saved["warmstart"]["decay"] = "cosine"
    run_dir.config_file.write_text(yaml.safe_dump(saved))
    with pytest.raises(ConfigError, match=r"rollout.staleness: None -> 1"):
        run_dir.check_resumable(
            config_for(tmp_path, **{"run.tracking_uri": "sqlite:///a.db", "rollout.staleness": 1}), 5
        )


def test_a_sweep_study_keeps_its_fingerprint_from_before_the_later_keys():
    from sweeps.config import load_sweep_config

    # the default study's fingerprint as the code before rollout.staleness computed it (commit d9631ab), with the
    # tiny profile's warm start as it was then (400 steps, constant lr, a check every 25; issue 32 changed it)
    old_warm_start = {"warmstart.steps": 400, "warmstart.eval_every": 25, "warmstart.warmup_steps": 0}
    old_warm_start |= {"warmstart.decay": "constant", "warmstart.min_lr_ratio": 1.0}
    old_warm_start |= {"warmstart.grad_clip": None, "warmstart.threads": None}
    assert load_sweep_config(None, {}, old_warm_start).base_fingerprint()[0] == "e8359e58d2cf470a"
    staleness = {**old_warm_start, "rollout.staleness": 1}
    assert load_sweep_config(None, {}, staleness).base_fingerprint()[0] != "e8359e58d2cf470a"
    assert load_sweep_config(None, {}, {}).base_fingerprint()[0] != "e8359e58d2cf470a"  # a new starting policy


def test_resume_without_the_runs_config_or_with_a_damaged_one_is_refused(tmp_path):
    run_dir = RunDirectory(tmp_path)
    config = config_for(tmp_path)
    with pytest.raises(ConfigError, match=r"config.yaml is missing, so this config cannot be checked"):
        run_dir.check_resumable(config, steps_done=5)
    for damaged in ("[1, 2", "- a list\n- of items\n", "\udcff"):
        run_dir.config_file.write_text(damaged, errors="surrogateescape")
        with pytest.raises(ConfigError, match=r"config.yaml is damaged"):
            run_dir.check_resumable(config, steps_done=5)


def test_claim_refuses_a_file_where_the_checkpoints_go(tmp_path):
    (tmp_path / "checkpoints").write_text("x")
    with pytest.raises(ConfigError, match=r"the run's checkpoints folder='.*checkpoints' is a file, not a directory"):
        RunDirectory(tmp_path).claim()
    (tmp_path / "checkpoints").unlink()
    (tmp_path / "model").write_text("x")
    with pytest.raises(ConfigError, match=r"the run's model folder='.*model' is a file, not a directory"):
        RunDirectory(tmp_path).claim()


def test_rollout_log_restarts_at_the_checkpoint_step(tmp_path):
    log = RolloutLog(tmp_path / "rollouts.jsonl")
    log.restart_at(0)
    for step in range(6):
        log.write(step, [{"completion": f"c{step}", "reward": 1.0}] * 2)
    with open(tmp_path / "rollouts.jsonl", "a") as sink:
        sink.write('{"step": 6, "compl')  # a line cut short by a kill
    log.restart_at(4)
    steps = [json.loads(line)["step"] for line in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert steps == [0, 0, 1, 1, 2, 2, 3, 3]
    log.restart_at(0)
    assert (tmp_path / "rollouts.jsonl").read_text() == ""
