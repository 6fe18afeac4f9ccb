"""Fixtures of the harness tests."""

import json

import mlflow
import pytest
import torch

from harness.cli import main
from harness.models import load_model
from harness.rollout.engine import chat_prompt

MATH = ["aime24", "aime25", "hmmt25", "math500", "amc23"]


@pytest.fixture
def eval_math_suite():
    """`eval_math_suite(model, new_tokens, limit, tmp_path, mlflow_server)`: `harness eval` on the five
    math benchmarks, checked end to end (test_evaluate.py: tiny; test_smol_integration.py: SmolLM2)."""
    return _eval_math_suite


def _eval_math_suite(model: str, new_tokens: str, limit: int, tmp_path, mlflow_server) -> None:
    """`harness eval` of `model` on the five math benchmarks: results, samples and MLflow agree."""
    out = tmp_path / "eval"
    code = main(
        [
            "eval",
            "--model",
            model,
            "--suite",
            "math",
            "--k",
            "2",
            "--limit",
            str(limit),
            "--max-new-tokens",
            new_tokens,
            "--output-dir",
            str(out),
            "--tracking-uri",
            mlflow_server,
        ]
    )
    assert code == 0
    results = json.loads((out / "results.json").read_text())
    assert sorted(results["benchmarks"]) == sorted(MATH)
    for bench in results["benchmarks"].values():
        assert bench["num_problems"] == limit and bench["num_samples"] == 2 * limit
        assert 0.0 <= bench["metrics"]["acc"]["avg@2"] <= 1.0
    assert results["suite"]["benchmarks"] == MATH
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 5 * limit * 2
    assert {"prompt", "completion", "reference", "correct"} <= set(samples[0])

    client = mlflow.MlflowClient(mlflow_server)
    runs = client.search_runs(
        [client.get_experiment_by_name("ce-gppo-eval").experiment_id], filter_string=f"params.model = '{model}'"
    )
    assert runs, "the evaluation run is in MLflow"
    assert any(key.startswith("eval/") for key in runs[0].data.metrics)
    artifacts = {a.path for a in client.list_artifacts(runs[0].info.run_id, "eval")}
    assert {"eval/results.json", "eval/samples.jsonl"} <= artifacts


@pytest.fixture
def check_model():
    """`check_model(name, text, tmp_path)`: load a model, sample 6 tokens from a chat prompt, and check that
    a save/load round trip keeps the chat template and the logits exactly (test_models.py, and
    test_smol_integration.py for SmolLM2, so that one worker de-quantises it once)."""
    return _check_model


def roundtrip(model, tokenizer, tmp_path):
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    return load_model(str(tmp_path))


def _check_model(name, text, tmp_path):
    model, tokenizer = load_model(name)
    model.eval()
    prompt = chat_prompt(tokenizer, text)
    enc = tokenizer([prompt], return_tensors="pt", add_special_tokens=False)
    torch.manual_seed(0)
    out = model.generate(**enc, max_new_tokens=6, do_sample=True, pad_token_id=tokenizer.pad_token_id)
    new_tokens = out[0, enc.input_ids.shape[1] :]
    assert 1 <= len(new_tokens) <= 6
    assert isinstance(tokenizer.decode(new_tokens, skip_special_tokens=True), str)

    model2, tokenizer2 = roundtrip(model, tokenizer, tmp_path)
    model2.eval()
    assert chat_prompt(tokenizer2, text) == prompt  # the chat template survives
    with torch.no_grad():
        assert torch.equal(model(**enc).logits, model2(**enc).logits)
    return model, tokenizer
