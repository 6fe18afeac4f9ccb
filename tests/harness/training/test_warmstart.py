"""harness.training.warmstart: the supervised batch, the cache key, and the cached warm start."""

import torch

from harness.models import load_model
from harness.schema import load_train_config
from harness.tasks import Problem, build_task
from harness.training.heldout import heldout_accuracy
from harness.training.warmstart import load_or_warm_start, supervised_batch, warm_start_key


def test_supervised_batch_labels_only_the_answer_and_eos():
    _, tokenizer = load_model("tiny")
    batch = supervised_batch(tokenizer, [Problem("1+2=", "3"), Problem("10+20=", "30")])
    labels, ids = batch["labels"], batch["input_ids"]
    for row, answer in enumerate(["3", "30"]):
        target = tokenizer(answer, add_special_tokens=False).input_ids + [tokenizer.eos_token_id]
        assert labels[row][labels[row] != -100].tolist() == target
        assert ids[row][labels[row] != -100].tolist() == target  # labels sit on the tokens themselves
    assert batch["attention_mask"].sum(-1).tolist()[0] < batch["attention_mask"].shape[1]  # row 0 is padded


def test_cache_key_follows_what_changes_the_warm_start():
    base = load_train_config("tiny", None, {})
    assert warm_start_key(base) == warm_start_key(load_train_config("tiny", None, {"run.seed": 7, "loss": "grpo"}))
    assert warm_start_key(base) != warm_start_key(load_train_config("tiny", None, {"warmstart.steps": 5}))
    assert warm_start_key(base) != warm_start_key(load_train_config("tiny", None, {"task.level": 1}))


def test_warm_start_is_done_once_then_read_from_the_cache(tmp_path):
    config = load_train_config("tiny", None, {"warmstart.steps": 4, "warmstart.eval_every": 2, "task.heldout_size": 8})
    task = build_task(config.task)
    lines = []
    model, tokenizer, info = load_or_warm_start(lambda name: load_model(name), task, config, tmp_path, lines.append)
    assert [h["step"] for h in info["history"]] == [2, 4] and len(lines) == 2
    again, _, info_again = load_or_warm_start(lambda name: load_model(name), task, config, tmp_path, lines.append)
    assert info_again == info and len(lines) == 2  # nothing trained the second time
    for name, value in model.state_dict().items():
        assert torch.equal(value, again.state_dict()[name]), name
    assert [p.name for p in (tmp_path / "warmstart").iterdir()] == [info["key"]]


def test_heldout_accuracy_counts_correct_greedy_answers():
    model, tokenizer = load_model("tiny")
    accuracy = heldout_accuracy(model, tokenizer, [Problem("1+1=", "2"), Problem("2+2=", "4")], 3, greedy=True)
    assert accuracy in (0.0, 0.5, 1.0)


def test_a_problem_with_a_demonstration_is_trained_on_the_demonstration():
    _, tokenizer = load_model("tiny")
    batch = supervised_batch(tokenizer, [Problem("3 5 7>22:", "countdown:3 5 7>22", "5*3=15,15+7=22 A:(5*3)+7")])
    target = tokenizer("5*3=15,15+7=22 A:(5*3)+7", add_special_tokens=False).input_ids + [tokenizer.eos_token_id]
    assert batch["labels"][0][batch["labels"][0] != -100].tolist() == target
