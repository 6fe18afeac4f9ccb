"""The --lm-eval passthrough: a local lm-eval task runs on an in-memory model; bad names are explained."""

import json
import logging

import pytest

from benchmarks.lm_eval_bridge import check_lm_eval_tasks, run_lm_eval

TASK_YAML = """task: tiny_choice
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: "{{{{answer}}}}"
metric_list:
  - metric: acc
"""


@pytest.fixture(scope="module")
def tiny_model():
    """A random 2-layer Llama with a byte-level tokenizer built in memory (nothing downloaded)."""
    torch = pytest.importorskip("torch")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))} | {"<eos>": len(alphabet)}
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<eos>", pad_token="<eos>")
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=128,
        eos_token_id=len(alphabet), pad_token_id=len(alphabet), bos_token_id=len(alphabet),
    )  # fmt: skip
    return LlamaForCausalLM(config).eval(), tokenizer


@pytest.fixture
def task_dir(tmp_path):
    rows = [{"question": f"{a}+{a}=", "choices": [str(2 * a), str(2 * a + 1)], "answer": 0} for a in range(4)]
    data = tmp_path / "tiny.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "tiny_choice.yaml").write_text(TASK_YAML.format(data=data))
    return tmp_path


def test_runs_a_local_task(tiny_model, task_dir):
    model, tokenizer = tiny_model
    results = run_lm_eval(
        model, tokenizer, ["tiny_choice"], limit=4, batch_size=2, include_path=task_dir, include_defaults=False
    )
    accuracy = results["results"]["tiny_choice"]["acc,none"]
    assert 0.0 <= accuracy <= 1.0
    assert results["n-samples"]["tiny_choice"]["effective"] == 4


def test_unknown_task_is_a_clear_error(tiny_model, task_dir):
    model, tokenizer = tiny_model
    with pytest.raises(ValueError, match=r"unknown lm-eval task\(s\): 'tiny_choise' \(did you mean tiny_choice\?\)"):
        run_lm_eval(model, tokenizer, ["tiny_choise"], include_path=task_dir, include_defaults=False)


def test_unknown_task_is_one_line_and_the_index_stays_quiet(task_dir, caplog):
    # A second YAML with the same task name makes lm-eval's task index log a warning.
    (task_dir / "copy").mkdir()
    (task_dir / "copy" / "tiny_choice.yaml").write_text((task_dir / "tiny_choice.yaml").read_text())
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ValueError) as error:
        run_lm_eval(None, None, ["nosuchtask", "tiny_choice"], include_path=task_dir, include_defaults=False)
    assert str(error.value) == (
        "unknown lm-eval task(s): 'nosuchtask' (no task has a close name); `lm-eval ls tasks` lists them all"
    )
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert logging.getLogger("lm_eval").level == logging.NOTSET  # restored


@pytest.mark.parametrize("tasks", [[], [""], ["tiny_choice", " "]])
def test_no_task_or_a_blank_name_is_a_clear_error(task_dir, tasks):
    with pytest.raises(
        ValueError, match=r"^(no lm-eval task named|empty lm-eval task name in \[.*\] \(a stray comma\?\))"
    ):
        run_lm_eval(None, None, tasks, include_path=task_dir, include_defaults=False)


def test_checking_task_names_needs_no_model(task_dir):
    manager = check_lm_eval_tasks(["tiny_choice"], include_path=task_dir, include_defaults=False)
    assert "tiny_choice" in manager.all_tasks
    with pytest.raises(ValueError, match="'tiny_choise' \\(did you mean tiny_choice\\?\\)"):
        check_lm_eval_tasks(["tiny_choise"], include_path=task_dir, include_defaults=False)
