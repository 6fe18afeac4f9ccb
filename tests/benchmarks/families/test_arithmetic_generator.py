"""The synthetic arithmetic generator: formats, answers, determinism, disjoint splits, errors."""

import pytest

from benchmarks import arithmetic_space, generate_arithmetic, get_benchmark, grade_math
from benchmarks.families.arithmetic import is_held_out


def test_compact_and_natural_rows():
    compact = generate_arithmetic(2, "train", 50, seed=3)
    natural = generate_arithmetic(2, "train", 50, seed=3, style="natural")
    for c, n in zip(compact, natural):
        a, b = c["expression"].split("+")
        assert len(a) == len(b) == 2 and c["problem"] == c["expression"] + "="
        assert c["answer"] == str(int(a) + int(b)) == n["answer"]
        assert n["problem"] == f"What is {int(a)} + {int(b)}? Answer with just the number."
        assert set(c) == {"id", "problem", "answer", "expression"}


def test_golden_rows():
    assert generate_arithmetic(1, "test", 2, seed=0) == [
        {"id": "arith_l1-test-6+9", "problem": "6+9=", "answer": "15", "expression": "6+9"},
        {"id": "arith_l1-test-4+7", "problem": "4+7=", "answer": "11", "expression": "4+7"},
    ]
    assert generate_arithmetic(3, "train", 1, seed=0)[0]["problem"] == "062+350="


def test_level_four_mixes_three_operations():
    rows = generate_arithmetic(4, "train", 600, seed=0, style="natural")
    operations = {op: [r for r in rows if op in r["expression"]] for op in "+-*"}
    assert all(len(found) > 150 for found in operations.values())
    for row in operations["-"]:
        a, b = map(int, row["expression"].split("-"))
        assert a >= b and row["answer"] == str(a - b)
    for row in operations["*"]:
        d, n = row["expression"].split("*")
        assert len(d) == 1 and len(n) == 2 and row["answer"] == str(int(d) * int(n))
        assert "*" in row["problem"]


@pytest.mark.parametrize("level", [1, 2, 4])
def test_splits_are_disjoint_and_test_is_the_held_out_set(level):
    test = generate_arithmetic(level, "test", 10**6, seed=0)
    assert len(test) == arithmetic_space(level, "test") == len({r["expression"] for r in test})
    assert all(is_held_out(r["expression"]) for r in test)
    train = generate_arithmetic(level, "train", 2000, seed=1)
    assert not {r["expression"] for r in train} & {r["expression"] for r in test}


def test_space_sizes():
    assert arithmetic_space(1, "train") + arithmetic_space(1, "test") == 100
    assert arithmetic_space(2, "train") + arithmetic_space(2, "test") == 10_000
    assert arithmetic_space(4, "train") + arithmetic_space(4, "test") == 10_000 + 5_050 + 1_000


def test_deterministic_in_seed():
    assert generate_arithmetic(2, "train", 20, seed=7) == generate_arithmetic(2, "train", 20, seed=7)
    assert generate_arithmetic(2, "train", 20, seed=7) != generate_arithmetic(2, "train", 20, seed=8)
    assert generate_arithmetic(2, "test", 20, seed=1) != generate_arithmetic(2, "test", 20, seed=2)


def test_answers_grade_as_correct_rewards():
    for row in generate_arithmetic(4, "train", 50, seed=0):
        assert grade_math(row["answer"], row["answer"])
        assert not grade_math(str(int(row["answer"]) + 1), row["answer"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"level": 5}, "unknown arithmetic level 5; allowed: 1, 2, 3, 4"),
        ({"split": "valid"}, "unknown arithmetic split 'valid'; allowed: train, test"),
        ({"style": "latex"}, "unknown arithmetic style 'latex'; allowed: compact, natural"),
    ],
)
def test_bad_arguments(kwargs, message):
    arguments = {"level": 1, "split": "train", "count": 1, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        generate_arithmetic(**arguments)


def test_benchmark_generates_the_test_split():
    rows = get_benchmark("arith_l2").load(limit=30)
    assert len(rows) == 30 and all(is_held_out(r["expression"]) for r in rows)
    assert len(get_benchmark("arith_l1_compact").load()) == 7
    assert get_benchmark("arith_l2").prompt(rows[0]).startswith("What is ")
