"""vLLM in training and evaluation: a short run (rollouts, truncated importance sampling, weights
synced after each step), a 2-process DDP run with one engine per rank, `harness eval --backend vllm`."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("vllm")

from algorithms.names import MISMATCH_VARIANTS  # noqa: E402
from harness.dataclass_config import build_config  # noqa: E402
from harness.evaluate import evaluate_model  # noqa: E402
from harness.schema import EvalConfig, load_train_config  # noqa: E402
from harness.training.train import train  # noqa: E402

SCRIPT = Path(__file__).with_name("train_script.py")
SHORT = {
    "rollout.backend": "vllm",
    "rollout.prompts_per_step": 8,
    "rollout.group_size": 4,
    "rollout.tis_cap": 2.0,
    "algo.mini_batches": 2,
    "warmstart.steps": 0,
    "run.steps": 3,
    "run.checkpoint_every": 3,
}


def test_short_training_run_syncs_the_engine(tmp_path):
    sys.path.insert(0, str(SCRIPT.parent))
    from train_script import EngineCheck

    overrides = {**SHORT, "run.output_dir": str(tmp_path / "run"), "run.tracking_uri": f"sqlite:///{tmp_path}/m.db"}
    summary = train(load_train_config("tiny", None, overrides), callbacks=[EngineCheck(tmp_path)])
    assert summary["steps_completed"] == 3
    history = json.loads((tmp_path / "run" / "summary.json").read_text())["history"]
    for step in history:
        assert 0 < step["mismatch_ratio_mean"] < 1.01 and step["mismatch_ratio_max"] >= step["mismatch_ratio_mean"]
    (check,) = [json.loads(p.read_text()) for p in tmp_path.glob("engine_rank*.json")]
    assert check["backend"] == "VLLMBackend" and check["greedy_equal"], check


@pytest.mark.parametrize("variant", MISMATCH_VARIANTS)
def test_every_mismatch_correction_trains_on_vllm_rollouts(variant, tmp_path):
    """rollout.mismatch on the path it exists for: vLLM's sampling log-probs against the trainer's."""
    overrides = {**SHORT, "rollout.tis_cap": None, "rollout.mismatch": variant, "run.steps": 2}
    overrides |= {"run.checkpoint_every": 2, "run.output_dir": str(tmp_path / "run")}
    summary = train(load_train_config("tiny", None, {**overrides, "run.tracking_uri": f"sqlite:///{tmp_path}/m.db"}))
    assert summary["steps_completed"] == 2
    for step in json.loads((tmp_path / "run" / "summary.json").read_text())["history"]:
        assert 0 <= step["mismatch_masked_frac"] <= 1
        assert step["mismatch_weight_max"] >= step["mismatch_weight_mean"] >= 0


def test_two_process_ddp_run_has_one_engine_per_rank(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path), "2"], capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    checks = sorted((json.loads(p.read_text()) for p in tmp_path.glob("engine_rank*.json")), key=lambda c: c["rank"])
    assert [c["rank"] for c in checks] == [0, 1]
    assert [len(c["engine_pids"]) for c in checks] == [1, 1]  # each rank started one engine process
    assert checks[0]["engine_pids"] != checks[1]["engine_pids"]
    assert all(c["backend"] == "VLLMBackend" and c["greedy_equal"] and c["steps"] == 2 for c in checks), checks
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["steps_completed"] == 2


def test_eval_with_vllm_equals_hf_when_greedy(tmp_path):
    def run(backend):
        evaluate_model(
            build_config(
                EvalConfig,
                {
                    "model": "tiny",
                    "suite": "arith_l2_compact",
                    "k": 2,
                    "limit": 6,
                    "max_new_tokens": 6,
                    "temperature": 0.0,
                    "backend": backend,
                    "output_dir": str(tmp_path / backend),
                    "tracking_uri": "none",
                },
            ),
            log=lambda *_: None,
        )
        rows = (tmp_path / backend / "samples.jsonl").read_text().splitlines()
        return [(row["id"], row["sample"], row["completion"]) for row in map(json.loads, rows)]

    vllm_rows = run("vllm")
    assert len(vllm_rows) == 12
    assert vllm_rows == run("hf")


def test_asynchronous_run_with_a_vllm_engine_in_the_worker(tmp_path):
    """rollout.staleness 1: the worker process holds the vLLM engine and loads each version's weights into it."""
    overrides = {
        **SHORT,
        "rollout.tis_cap": None,  # with staleness the engine's log-probs are the behaviour policy's
        "rollout.top_p": 1.0,
        "rollout.staleness": 1,
        "run.output_dir": str(tmp_path / "async"),
        "run.tracking_uri": f"sqlite:///{tmp_path}/m.db",
    }
    summary = train(load_train_config("tiny", None, overrides))
    assert summary["steps_completed"] == 3
    history = json.loads((tmp_path / "async" / "summary.json").read_text())["history"]
    assert [h["staleness_max"] for h in history] == [0, 1, 1]
    for step in history:  # the engine's sampling distribution against the trainer's: close, not equal
        assert 0.9 < step["behaviour_ratio_mean"] < 1.1, step
