"""harness.training.warmstart: the supervised batch, the cache key, the cached warm start, its schedule, its
target, the pinned threads and the starting policy's identity."""

import pytest
import torch

from harness.models import load_model
from harness.schema import load_train_config
from harness.tasks import Problem, build_task
from harness.training.heldout import heldout_accuracy
from harness.training.warmstart import (
    WarmStartError,
    check_target,
    learning_rate,
    load_or_warm_start,
    pinned_threads,
    reached_target,
    starting_policy,
    starting_policy_label,
    supervised_batch,
    warm_start_key,
)


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


def test_the_countdown_scheme_keys_its_own_warm_start_and_the_default_keeps_the_old_key():
    """aeedd7507b24: the countdown profile's key before task.countdown_scheme existed (492278a), when its
    task was the full game; the profile now plays addsub, which keys its own warm start."""
    full = load_train_config("countdown", None, {"task.countdown_scheme": "full"})
    assert warm_start_key(full) == "aeedd7507b24"  # the default scheme, left at its default: the old key
    assert warm_start_key(load_train_config("countdown", None, {})) == "7010dec1f74f"  # the profile: addsub


def test_warm_start_is_done_once_then_read_from_the_cache(tmp_path):
    short = {"warmstart.steps": 4, "warmstart.eval_every": 2, "warmstart.stop_at_accuracy": None}
    config = load_train_config("tiny", None, {**short, "task.heldout_size": 8})
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


def schedule(**overrides):
    keys = {"warmstart.steps": 150, "warmstart.lr": 1e-3, "warmstart.warmup_steps": 50, **overrides}
    return load_train_config("tiny", None, {f"warmstart.{k}" if "." not in k else k: v for k, v in keys.items()})


def test_learning_rate_warms_up_linearly_then_follows_the_cosine_to_its_floor():
    ws = schedule(**{"warmstart.decay": "cosine", "warmstart.min_lr_ratio": 0.1}).warmstart
    assert learning_rate(ws, 1) == pytest.approx(1e-3 / 50)
    assert learning_rate(ws, 25) == pytest.approx(0.5e-3)
    assert learning_rate(ws, 50) == pytest.approx(1e-3)  # the warm-up's end is the peak
    # half-way through the decay (step 100 of 50..150): cos(pi/2) = 0, so lr (0.1 + 0.9 * 0.5) = 0.55 lr
    assert learning_rate(ws, 100) == pytest.approx(0.55e-3)
    assert learning_rate(ws, 150) == pytest.approx(1e-4)  # the floor: lr x min_lr_ratio at the last step
    lrs = [learning_rate(ws, s) for s in range(50, 151)]
    assert all(a >= b for a, b in zip(lrs, lrs[1:]))


def test_constant_decay_and_no_warm_up_keep_the_learning_rate():
    ws = schedule(**{"warmstart.warmup_steps": 0, "warmstart.decay": "constant"}).warmstart
    assert {learning_rate(ws, s) for s in (1, 75, 150)} == {1e-3}


def test_the_target_is_checked_at_the_last_check_and_named_in_one_line():
    ws = schedule(**{"warmstart.stop_at_accuracy": 0.35}).warmstart
    history = [
        {"step": 25, "greedy_accuracy": 0.1},
        {"step": 50, "greedy_accuracy": 0.3},
        {"step": 75, "greedy_accuracy": 0.2},
    ]
    with pytest.raises(WarmStartError) as caught:
        check_target(ws, history)
    message = str(caught.value)
    assert "did not reach warmstart.stop_at_accuracy=0.35" in message and "(accuracy 0.200 at step 75" in message
    assert "best 0.300 at step 50" in message and "\n" not in message
    check_target(ws, [*history, {"step": 80, "greedy_accuracy": 0.35}])  # reached: no error
    check_target(schedule(**{"warmstart.stop_at_accuracy": None}).warmstart, history)  # no target: no error
    assert reached_target(ws, 0.35) and not reached_target(ws, 0.349)


def test_pinned_threads_are_restored_afterwards():
    before = torch.get_num_threads()
    with pinned_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError), pinned_threads(1):
        raise RuntimeError("inside")
    assert torch.get_num_threads() == before


def test_a_warm_start_below_its_target_fails_and_caches_nothing(tmp_path):
    config = load_train_config(
        "tiny", None, {"warmstart.steps": 3, "warmstart.eval_every": 1, "task.heldout_size": 8}
    )  # the tiny profile's target 0.35 cannot be met in 3 steps
    task = build_task(config.task)
    lines = []
    with pytest.raises(WarmStartError, match=r"\(accuracy 0\.000 at step 3"):
        load_or_warm_start(lambda name: load_model(name), task, config, tmp_path, lines.append)
    assert len(lines) == 3  # a check every step
    assert not (tmp_path / "warmstart" / warm_start_key(config)).exists()  # no policy below its target is kept


def test_the_starting_policy_names_the_key_the_accuracy_and_the_steps():
    config = load_train_config("tiny", None, {})
    info = {"key": "abc123", "history": [{"step": 193, "greedy_accuracy": 0.37}], "steps": 193, "greedy_accuracy": 0.37}
    identity = starting_policy(config, info)
    assert identity == {"model": "tiny", "warm_start_key": "abc123", "greedy_accuracy": 0.37, "steps": 193}
    assert starting_policy_label(identity) == "warm start abc123 of tiny (greedy held-out 0.370 after 193 steps)"
    older = {"key": "abc123", "history": [{"step": 400, "greedy_accuracy": 0.035}]}  # a cache from before
    assert starting_policy(config, older)["steps"] == 400 and starting_policy(config, older)["greedy_accuracy"] == 0.035
    assert starting_policy_label(starting_policy(config, None)) == "tiny (no warm start)"
