"""IFEval through lm-eval's own checkers: every row runs, simple instructions judged right."""

import pytest

from benchmarks import get_benchmark

IFEVAL = get_benchmark("ifeval")


@pytest.fixture(scope="module")
def rows(data_dir):
    return IFEVAL.load(data_dir)


def _row(rows, instructions):
    return next(r for r in rows if r["instruction_id_list"] == instructions)


def test_checkers_run_on_every_row(rows):
    response = "Hello world. This is a short answer, with a comma. It has three sentences."
    for row in rows:
        scores = IFEVAL.score(row, response)
        assert set(scores) == {m.name for m in IFEVAL.metrics}
        assert all(0.0 <= value <= 1.0 for value in scores.values())


def test_no_comma_instruction(rows):
    row = _row(rows, ["punctuation:no_comma"])
    followed = IFEVAL.score(row, "A plain answer without the forbidden mark.")
    assert followed == dict.fromkeys(followed, 1.0)
    broken = IFEVAL.score(row, "An answer, with a comma.")
    assert broken == dict.fromkeys(broken, 0.0)


def test_lowercase_instruction_strict_and_loose(rows):
    row = _row(rows, ["change_case:english_lowercase"])
    assert IFEVAL.score(row, "this whole reply is written in lowercase letters only.")["prompt_level_strict_acc"] == 1.0
    assert IFEVAL.score(row, "This Reply Uses Capitals Everywhere.")["prompt_level_loose_acc"] == 0.0


def test_sentence_counting_uses_punkt(rows):
    row = next(r for r in rows if r["instruction_id_list"] == ["length_constraints:number_sentences"])
    kwargs = row["kwargs"][0]
    count = kwargs["num_sentences"]
    few, many = "One sentence only.", " ".join(f"Sentence number {i}." for i in range(count + 5))
    expected = {"less than": (1.0, 0.0), "at least": (0.0, 1.0)}[kwargs["relation"]]
    assert (
        IFEVAL.score(row, few)["prompt_level_strict_acc"],
        IFEVAL.score(row, many)["prompt_level_strict_acc"],
    ) == expected


def test_instruction_level_is_a_fraction(rows):
    row = next(
        r for r in rows if "punctuation:no_comma" in r["instruction_id_list"] and len(r["instruction_id_list"]) == 3
    )
    scores = IFEVAL.score(row, "no commas here at all")
    assert scores["prompt_level_strict_acc"] == 0.0
    assert scores["inst_level_strict_acc"] in (1 / 3, 2 / 3)
