"""Training tasks: data order is a function of (seed, step); held-out never overlaps training."""

import json

import pytest

from harness.common.errors import ConfigError, DataError
from harness.models import load_model
from harness.rollout.engine import prompt_fits
from harness.schema import TaskConfig
from harness.tasks import build_task


def test_arithmetic_batches_are_reproducible_and_disjoint_from_heldout():
    task = build_task(TaskConfig(level=2))
    assert task.train_batch(3, 16, seed=1) == task.train_batch(3, 16, seed=1)
    assert task.train_batch(3, 16, seed=1) != task.train_batch(4, 16, seed=1)
    assert task.train_batch(3, 16, seed=1) != task.train_batch(3, 16, seed=2)
    heldout = {p.prompt for p in task.heldout()}
    assert len(heldout) == 200
    seen = {p.prompt for step in range(50) for p in task.train_batch(step, 64, seed=0)}
    assert not heldout & seen


def test_jsonl_task_epochs_cover_every_row(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps({"q": f"question {i}", "a": str(i)}) for i in range(50)))
    task = build_task(TaskConfig(source="jsonl", path=str(path), prompt_key="q", answer_key="a", heldout_size=10))
    heldout = {p.prompt for p in task.heldout()}
    assert len(heldout) == 10
    epoch = [p.prompt for step in range(4) for p in task.train_batch(step, 10, seed=0)]  # 40 training rows
    assert len(set(epoch)) == 40 and not set(epoch) & heldout


def test_jsonl_errors_name_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"problem": "x", "answer": "1"}\n{"problem": "y"}\n')
    with pytest.raises(ConfigError, match="row 2 has no field 'answer'"):
        build_task(TaskConfig(source="jsonl", path=str(path)))
    path.write_text('{"problem": "x"\n')
    with pytest.raises(DataError, match="bad.jsonl:1: not valid JSON"):
        build_task(TaskConfig(source="jsonl", path=str(path)))
    with pytest.raises(DataError, match="no such file"):
        build_task(TaskConfig(source="jsonl", path=str(tmp_path / "missing.jsonl")))


@pytest.mark.parametrize(
    "content, error, message",
    [
        (b'{"problem": "\xff", "answer": "1"}\n', DataError, "rows.jsonl:1: not UTF-8 text"),
        (b'"just text"\n', DataError, "rows.jsonl:1: expected a JSON object, got str"),
        (b"42\n", DataError, "rows.jsonl:1: expected a JSON object, got int"),
        (b"", DataError, "holds no rows"),
        (b'{"problem": "x", "answer": null}\n' * 10, ConfigError, "row 1 has no field 'answer' (or it is empty)"),
        (b'{"problem": ["x"], "answer": "1"}\n' * 10, ConfigError, "row 1 field 'problem' is a list"),
        (b'{"problem": "x", "answer": "1"}\n', ConfigError, "1 usable rows are too few"),
        (b'{"problem": "x", "answer": "1"}\n' * 4, ConfigError, "4 usable rows are too few"),
        (b'{"problem": "x", "answer": "1"}\n' * 4, ConfigError, "so at least 5 are needed"),
        (b'{"problem": "x\\udc00", "answer": "1"}\n', DataError, "rows.jsonl:1: the text holds an unpaired surrogate"),
        (b'{"problem": "x", "answer": Infinity}\n', DataError, "rows.jsonl:1: Infinity is not a JSON value"),
        (b'{"problem": "x", "answer": true}\n' * 10, ConfigError, "row 1 field 'answer' is a bool"),
    ],
)
def test_bad_task_files_are_one_line_errors(content, error, message, tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(content)
    with pytest.raises(error) as info:
        build_task(TaskConfig(source="jsonl", path=str(path)))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_number_past_pythons_digit_limit_is_kept_as_its_digits(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(f'{{"problem": "p{i}", "answer": {i}{"0" * 5000}}}\n' for i in range(1, 11)))
    task = build_task(TaskConfig(source="jsonl", path=str(path)))
    answers = {p.prompt: p.answer for p in task.heldout()}
    assert answers and all(answer == prompt[1:] + "0" * 5000 for prompt, answer in answers.items())


def test_prompts_too_long_for_the_model_are_dropped_and_counted(tmp_path):
    path = tmp_path / "rows.jsonl"
    rows = [{"problem": ("x" * 400_000 if i % 3 == 0 else f"q{i}"), "answer": str(i)} for i in range(30)]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    task = build_task(TaskConfig(source="jsonl", path=str(path), heldout_size=5))
    dropped = task.drop_unfit(lambda prompt: len(prompt) < 1000)
    assert dropped == 10
    assert all(len(p.prompt) < 1000 for p in task.heldout() + task.train_batch(0, 40, seed=0))
    with pytest.raises(ConfigError, match="20 of 20 prompts do not fit"):
        task.drop_unfit(lambda prompt: False)
    assert build_task(TaskConfig(level=1)).drop_unfit(lambda prompt: True) == 0


def test_a_prompt_budget_no_row_fits_names_the_limit_and_the_shortest_prompt(tmp_path):
    # every row dropped by rollout.max_prompt_tokens used to read "20 usable rows are too few"
    path = tmp_path / "task20.jsonl"
    path.write_text("\n".join(json.dumps({"problem": f"{i}+63=", "answer": str(i + 63)}) for i in range(20)))
    task = build_task(TaskConfig(source="jsonl", path=str(path)))
    model, tokenizer = load_model("tiny")
    fits = prompt_fits(model, tokenizer, max_new_tokens=8, max_prompt_tokens=2)
    shortest = fits.tokens("0+63=")
    with pytest.raises(ConfigError) as info:
        task.drop_unfit(fits)
    assert str(info.value) == (
        f"task {path}: 20 of 20 prompts do not fit 2 prompt tokens (rollout.max_prompt_tokens); "
        f"the shortest prompt is {shortest} tokens once chat-formatted"
    )
    assert len(task.train_batch(0, 4, seed=0)) == 4  # refused, the task keeps its rows


def test_generated_prompts_are_held_to_the_prompt_budget():
    # arithmetic prompts were never checked: --rollout.max_prompt_tokens 1 trained on 6+ token prompts
    model, tokenizer = load_model("tiny")
    task = build_task(TaskConfig(level=1, heldout_size=10))
    probe = task.heldout() + task.train_batch(0, 64, 0)  # what drop_unfit checks
    with pytest.raises(ConfigError, match=rf"arithmetic: {len(probe)} of {len(probe)} prompts do not fit 1 prompt tok"):
        task.drop_unfit(prompt_fits(model, tokenizer, max_new_tokens=8, max_prompt_tokens=1))
    assert task.drop_unfit(prompt_fits(model, tokenizer, max_new_tokens=8, max_prompt_tokens=500)) == 0
    needed = max(fits_tokens(model, tokenizer, p.prompt) for p in probe)
    assert task.drop_unfit(prompt_fits(model, tokenizer, max_new_tokens=8, max_prompt_tokens=needed)) == 0
    with pytest.raises(ConfigError, match="do not fit"):
        task.drop_unfit(prompt_fits(model, tokenizer, max_new_tokens=8, max_prompt_tokens=needed - 1))


def fits_tokens(model, tokenizer, message: str) -> int:
    return prompt_fits(model, tokenizer, max_new_tokens=8).tokens(message)


def test_countdown_task_trains_on_its_split_warm_starts_on_a_minority_and_holds_out_the_draw():
    from benchmarks.families.countdown import generate_countdown, is_demonstrated
    from benchmarks.grading.task_grader import grade_answers

    task = build_task(TaskConfig(source="countdown", level=3, heldout_size=50))
    batch = task.train_batch(3, 16, seed=1)
    assert batch == task.train_batch(3, 16, seed=1) != task.train_batch(4, 16, seed=1)
    assert all(p.answer.startswith("countdown:") and p.demonstration for p in batch)
    assert [p.prompt for p in task.heldout()] == [r["problem"] for r in generate_countdown("test", 50, seed=0)]
    shown = task.warmstart_batch(0, 64, seed=0)
    keys = [(tuple(sorted(map(int, p.prompt.split(">")[0].split()))), int(p.prompt.split(">")[1][:-1])) for p in shown]
    assert all(is_demonstrated(*key) for key in keys)
    # the demonstrations are right answers to their problems by the reward's own checker, strict
    assert grade_answers([p.demonstration for p in shown], [p.answer for p in shown], strict=True) == [True] * 64


def test_countdown_task_follows_its_scheme_in_training_warm_start_and_held_out():
    from benchmarks.families.countdown import generate_countdown

    task = build_task(TaskConfig(source="countdown", level=3, heldout_size=20, countdown_scheme="addsub"))
    expected = generate_countdown("test", 20, seed=0, scheme="addsub")
    assert [(p.prompt, p.answer) for p in task.heldout()] == [(r["problem"], r["answer"]) for r in expected]
    for batch in (task.train_batch(0, 30, 0), task.warmstart_batch(0, 30, 0)):
        assert all(not set(p.demonstration) & set("*/") for p in batch)
    shown = [int(n) for p in task.train_batch(0, 200, 0) for n in p.prompt.split(">")[0].split()]
    assert max(shown) > 15  # the addsub scheme's numbers, not the full game's


def test_countdown_task_level_is_how_many_numbers():
    assert len(build_task(TaskConfig(source="countdown", level=4)).heldout()[0].prompt.split(">")[0].split()) == 4
    with pytest.raises(ConfigError, match="task.level=2 with task.source=countdown.*allowed: 3, 4"):
        build_task(TaskConfig(source="countdown", level=2))
