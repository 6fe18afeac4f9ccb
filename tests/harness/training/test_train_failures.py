"""`harness train` / `harness eval` refusing what cannot work, in one line and before any work:
seeds out of range, a huge k, an encoder model, nested tags; and a disk that fills up (simulated:
the writers raise what a full disk makes them raise)."""

import errno
import json

import mlflow
import pytest

from harness.cli import main
from harness.common.errors import ConfigError
from harness.dataclass_config import build_config
from harness.schema import EvalConfig, load_train_config
from harness.tracking import FAILURE_TAG
from harness.training.checkpoints import damage

SMALL = [
    "--run.steps",
    "2",
    "--rollout.prompts_per_step",
    "4",
    "--rollout.group_size",
    "2",
    "--algo.mini_batches",
    "1",
    "--run.checkpoint_every",
    "1",
    "--warmstart.steps",
    "0",
    "--task.heldout_size",
    "4",
]


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: load_train_config("tiny", None, {"run.seed": -5}), "run.seed=-5 is out of range"),
        (lambda: load_train_config("tiny", None, {"run.seed": 10**20}), f"run.seed={10**20} is out of range"),
        (lambda: load_train_config("tiny", None, {"warmstart.seed": -1}), "warmstart.seed=-1 is out of range"),
        (lambda: build_config(EvalConfig, {"seed": 2**32}), "seed=4294967296 is out of range"),
        (
            lambda: build_config(EvalConfig, {"k": 100_000_000}),
            "k=100000000 is out of range; allowed: >= 1 and <= 1024",
        ),
    ],
)
def test_seeds_and_k_out_of_range_are_config_errors(build, message):
    with pytest.raises(ConfigError) as info:
        build()
    assert message in str(info.value) and "\n" not in str(info.value)
    if "seed" in message:
        assert "allowed: >= 0 and <= 4294967295" in str(info.value)  # what Lightning's seed_everything takes


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "--profile", "tiny", "--run.seed", "-5"], "run.seed=-5 is out of range"),
        (["train", "--profile", "tiny", "--run.seed", "100000000000000000000"], "run.seed=100000000000000000000"),
        (["eval", "--seed", "-1"], "seed=-1 is out of range"),
        (["eval", "--k", "100000000"], "k=100000000 is out of range; allowed: >= 1 and <= 1024"),
        (["eval", "--tags", "{a: {b: 1}}"], "tags.a={'b': 1} has the wrong type"),
        (["eval", "--tags", "{a: [1, 2]}"], "tags.a=[1, 2] has the wrong type"),
    ],
)
def test_refused_at_config_time_before_anything_is_created(argv, message, tmp_path, capsys):
    where = ["--output-dir", str(tmp_path / "out"), "--tracking-uri", f"sqlite:///{tmp_path}/mlflow.db"]
    assert main([*argv, *where]) == 2
    assert message in one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    """A BERT masked-LM folder (config and the tiny tokenizer; no weights are needed to refuse it)."""
    from transformers import BertConfig

    from harness.models import build_tiny_tokenizer

    folder = tmp_path_factory.mktemp("arch") / "bert"
    BertConfig(
        hidden_size=16, num_hidden_layers=1, num_attention_heads=2, architectures=["BertForMaskedLM"]
    ).save_pretrained(folder)
    build_tiny_tokenizer().save_pretrained(folder)
    return str(folder)


@pytest.mark.parametrize("command", [["train", "--profile", "tiny", "--model.name"], ["eval", "--model"]])
def test_an_encoder_model_is_refused_before_anything_is_created(command, bert, tmp_path, capsys):
    where = ["--output-dir", str(tmp_path / "out"), "--tracking-uri", f"sqlite:///{tmp_path}/mlflow.db"]
    assert main([*command, bert, *where]) == 2
    assert "is an encoder (bert, bidirectional attention), not a decoder-only causal LM" in one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


def test_eval_sampler_calls_hold_a_bounded_number_of_sequences(tmp_path, monkeypatch):
    """k = 1024: 4 prompts per sampler call (4096 sequences), not 64 (65,536)."""
    from harness import evaluate

    seen = {}
    monkeypatch.setattr(evaluate, "evaluate", lambda *args, **kwargs: seen.update(kwargs) or {})
    for k, chunk in ((4, 64), (64, 64), (1024, 4)):
        config = build_config(
            EvalConfig, {"k": k, "suite": "arith_l1", "output_dir": str(tmp_path), "tracking_uri": "none"}
        )
        monkeypatch.setattr(evaluate, "format_results", lambda results: "")
        evaluate.evaluate_model(config, log=lambda line: None)
        assert seen["chunk_size"] == chunk and seen["chunk_size"] * k <= evaluate.SEQUENCES_PER_CALL


def test_a_disk_too_full_for_the_samples_stops_eval_before_generation(tmp_path, monkeypatch, capsys):
    from benchmarks import runner

    class Usage:
        total, used, free = 10**9, 10**9 - 16_000, 16_000

    monkeypatch.setattr(runner.shutil, "disk_usage", lambda path: Usage())
    out = tmp_path / "ev"
    argv = ["eval", "--model", "tiny", "--suite", "arith_l2_compact", "--limit", "50", "--k", "4"]
    assert main([*argv, "--output-dir", str(out), "--tracking-uri", "none"]) == 2
    line = one_line_error(capsys)
    assert f"cannot use {out / 'samples.jsonl'}: No space left on device" in line and "nothing was generated" in line


def test_a_disk_that_fills_up_during_training_fails_the_run_in_one_line(tmp_path, monkeypatch, capsys):
    """torch's zip writer reports the full disk as "[enforce fail at inline_container.cc:672] ...
    unexpected pos", with the ENOSPC as its context; the third save (step 1's) fails here."""
    from harness.training import checkpoints

    real_save, saves = checkpoints.torch.save, []

    def save(obj, sink, *args, **kwargs):
        saves.append(sink.name)
        if len(saves) <= 2:  # step 0: rl-step0.ckpt and last.ckpt
            return real_save(obj, sink, *args, **kwargs)
        try:
            sink.write(b"x" * 100)
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError:
            raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 2432 vs 2320") from None

    monkeypatch.setattr(checkpoints.torch, "save", save)
    out, uri = tmp_path / "tr", f"sqlite:///{tmp_path}/full.db"
    assert main(["train", "--profile", "tiny", *SMALL, "--output-dir", str(out), "--tracking-uri", uri]) == 2
    line = one_line_error(capsys)
    assert f"cannot use {out / 'checkpoints'}/" in line and line.endswith("No space left on device"), line
    state = json.loads((out / "run_state.json").read_text())
    run = mlflow.MlflowClient(uri).get_run(state["mlflow_run_id"])
    assert run.info.status == "FAILED" and "No space left on device" in run.data.tags[FAILURE_TAG]
    # what was written before stays: step 0's checkpoint, the config; no temporary is left
    assert damage(out / "checkpoints" / "last.ckpt") is None and (out / "config.yaml").is_file()
    assert not list(out.rglob("*.tmp"))


def test_a_full_artifact_store_fails_the_eval_run_in_one_line_and_keeps_the_results(tmp_path, monkeypatch, capsys):
    from harness import evaluate

    def full(results, output):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(evaluate, "log_to_mlflow", full)
    out, uri = tmp_path / "ev", f"sqlite:///{tmp_path}/m.db"
    argv = [
        "eval",
        "--model",
        "tiny",
        "--suite",
        "arith_l1_compact",
        "--limit",
        "2",
        "--k",
        "1",
        "--max-new-tokens",
        "4",
    ]
    assert main([*argv, "--output-dir", str(out), "--tracking-uri", uri]) == 2
    line = one_line_error(capsys)
    assert f"cannot use {(tmp_path / 'mlartifacts').as_uri()}/" in line and line.endswith("No space left on device")
    assert json.loads((out / "results.json").read_text())["settings"]["k"] == 1  # the evaluation's own files stay
    (run,) = mlflow.MlflowClient(uri).search_runs(
        [mlflow.MlflowClient(uri).get_experiment_by_name("ce-gppo-eval").experiment_id]
    )
    assert run.info.status == "FAILED" and "No space left on device" in run.data.tags[FAILURE_TAG]


def test_a_warm_start_below_its_target_ends_train_in_one_line_with_no_run(tmp_path, capsys):
    """Three supervised steps cannot reach the tiny profile's 0.35: exit 2 naming the accuracy and the step,
    no MLflow run created and no policy cached for a later run to start from."""
    from harness.models import cache_dir
    from harness.training.warmstart import warm_start_key

    uri = f"sqlite:///{tmp_path}/mlflow.db"
    short = ["--warmstart.steps", "3", "--warmstart.eval_every", "1", "--task.heldout_size", "8"]
    argv = ["train", "--profile", "tiny", "--output-dir", str(tmp_path / "out"), "--tracking-uri", uri, *short]
    assert main(argv) == 2
    err = one_line_error(capsys)
    assert err.startswith("harness train: error: warm start did not reach warmstart.stop_at_accuracy=0.35")
    assert "(accuracy 0.000 at step 3" in err
    config = load_train_config("tiny", None, {"warmstart.steps": 3, "warmstart.eval_every": 1, "task.heldout_size": 8})
    assert not (cache_dir() / "warmstart" / warm_start_key(config)).exists()
    client = mlflow.MlflowClient(uri)
    assert not client.search_runs([e.experiment_id for e in client.search_experiments()])
