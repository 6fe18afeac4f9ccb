"""The Countdown generator: reachable targets, disjoint splits, a demonstrated minority, a fixed draw."""

import pytest

from benchmarks.benchmark_registry import get_benchmark, resolve_suite
from benchmarks.families.countdown import (
    DRAW_SEED,
    MAX_NUMBER,
    MAX_TARGET,
    MIN_TARGET,
    countdown_space,
    generate_countdown,
    is_demonstrated,
    is_held_out,
)
from benchmarks.grading.countdown_check import check_expression, grade_countdown


@pytest.mark.parametrize("size", [3, 4])
def test_every_canonical_solution_is_graded_right_in_both_modes(size):
    rows = generate_countdown("test", 200, seed=0, size=size)
    assert len(rows) == 200
    for row in rows:
        numbers, target = row["numbers"], row["target"]
        assert len(numbers) == size and all(1 <= n <= MAX_NUMBER for n in numbers)
        assert MIN_TARGET <= target <= MAX_TARGET and target not in numbers
        assert grade_countdown(row["solution"], numbers, target)[:2] == (True, True), row
        assert row["answer"] == f"countdown:{' '.join(map(str, numbers))}>{target}"


def test_the_splits_are_disjoint_deterministic_and_the_demonstrated_share_a_minority():
    key = lambda row: (tuple(sorted(row["numbers"])), row["target"])  # noqa: E731
    train = generate_countdown("train", 2000, seed=1)
    test = generate_countdown("test", 10_000, seed=0)
    assert len(test) == countdown_space(3, "test") >= 500
    assert not {key(r) for r in train} & {key(r) for r in test}
    assert all(is_held_out(*key(r)) for r in test) and not any(is_held_out(*key(r)) for r in train)
    assert generate_countdown("train", 50, seed=1) == train[:50]
    shown = generate_countdown("train", 500, seed=1, demonstrated=True)
    assert all(is_demonstrated(*key(r)) for r in shown)
    share = sum(is_demonstrated(*key(r)) for r in train) / len(train)
    assert 0.15 < share < 0.35  # a quarter of the training problems have their solutions shown


def test_a_problem_has_many_answers_beyond_the_canonical_one():
    # 3 5 7 -> 22: 5*3+7 and 3*5+7 and 7+3*5 all count, not only the stored one
    assert all(check_expression(e, [3, 5, 7], 22) for e in ("5*3+7", "3*5+7", "7+3*5"))


def test_the_benchmark_is_a_fixed_draw_of_500_and_the_suite_resolves():
    countdown = get_benchmark("countdown")
    rows = countdown.load()
    assert len(rows) == 500 and len({r["id"] for r in rows}) == 500
    assert rows == generate_countdown("test", 500, DRAW_SEED)
    assert countdown.load(limit=20) == rows[:20]  # --limit keeps the first problems of the same draw
    assert [b.name for b in resolve_suite("countdown")] == ["countdown"]
    scores = countdown.score(rows[0], rows[0]["solution"])
    assert scores == {"acc": 1.0, "acc_strict": 1.0}
    assert countdown.score(rows[0], "A:" + rows[0]["solution"].split("A:")[1]) == {"acc": 1.0, "acc_strict": 0.0}
    assert get_benchmark("countdown_natural").load(limit=3)[0]["problem"].startswith("Using the numbers")
    assert len(get_benchmark("countdown4").load(limit=5)[0]["numbers"]) == 4


def test_bad_choices_are_refused_with_the_allowed_values():
    with pytest.raises(ValueError, match="size 5; allowed: 3, 4"):
        generate_countdown("test", 1, 0, size=5)
    with pytest.raises(ValueError, match="split 'dev'"):
        generate_countdown("dev", 1, 0)


def _digest(rows) -> str:
    import hashlib
    import json

    return hashlib.sha1(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:16]


def test_the_full_scheme_is_byte_identical_to_before_schemes_existed():
    """Digests of main's rows at 492278a (before task.countdown_scheme): problems, rows, ids, prompts, version."""
    assert generate_countdown("train", 2, 0)[1] == {
        "id": "countdown3-train-s0-1",
        "problem": "9 2 2>10:",
        "answer": "countdown:9 2 2>10",
        "numbers": [9, 2, 2],
        "target": 10,
        "solution": "2/2=1,9+1=10 A:9+(2/2)",
    }
    assert (countdown_space(3, "train"), countdown_space(3, "test")) == (5123, 579)
    assert _digest(generate_countdown("test", 10**6, 0)) == "cea85372fa54a111"
    assert _digest(generate_countdown("train", 300, 7)) == "6fca920bfdd23cf4"
    assert _digest(generate_countdown("train", 300, 7, demonstrated=True)) == "c776dbb95a306a91"
    assert _digest(generate_countdown("test", 10**6, 0, style="natural")) == "62674e4b278fa995"
    assert _digest(generate_countdown("train", 300, 7, size=4)) == "8b97d30f63c5c0b6"
    assert generate_countdown("train", 300, 7, scheme="full") == generate_countdown("train", 300, 7)
    countdown = get_benchmark("countdown")
    assert countdown.version == "benchmarks.families.countdown v1, draw v1"
    assert _digest(countdown.load()) == "685d3863c3c05403"


def test_the_addsub_scheme_uses_only_plus_and_minus_on_numbers_up_to_40():
    assert countdown_space(3, "train", "addsub") == 31_185
    assert countdown_space(3, "train", "addsub", demonstrated=True) == 8_693
    assert countdown_space(3, "test", "addsub") == 3_470
    rows = generate_countdown("test", 300, 0, scheme="addsub") + generate_countdown("train", 300, 0, scheme="addsub")
    assert all(r["id"].startswith("countdown3-addsub-") for r in rows)
    assert max(n for r in rows for n in r["numbers"]) > MAX_NUMBER  # numbers past the full scheme's 15
    for row in rows:
        numbers, target = row["numbers"], row["target"]
        assert all(1 <= n <= 40 for n in numbers) and MIN_TARGET <= target <= MAX_TARGET and target not in numbers
        assert not set(row["solution"]) & set("*/"), row
        assert grade_countdown(row["solution"], numbers, target)[:2] == (True, True), row
    natural = generate_countdown("test", 1, 0, style="natural", scheme="addsub")[0]["problem"]
    assert "with + - and parentheses" in natural and "*" not in natural


def test_the_addsub_benchmark_is_its_own_fixed_draw_and_version():
    addsub = get_benchmark("countdown_addsub")
    rows = addsub.load()
    # the whole held-out split, in the draw's order: the 500 and 2,000 draws of earlier versions are its prefixes
    assert len(rows) == 3470 and rows == generate_countdown("test", 3470, DRAW_SEED, scheme="addsub")
    assert len({r["id"] for r in rows}) == countdown_space(3, "test", "addsub")
    assert rows[:500] == generate_countdown("test", 500, DRAW_SEED, scheme="addsub")
    # a draw of another size is another version: evaluations of the 500 draw are never mixed in
    assert addsub.version == "benchmarks.families.countdown addsub-v1, draw v1 of 3470"
    assert get_benchmark("countdown").version == "benchmarks.families.countdown v1, draw v1"
    assert not {r["id"] for r in rows} & {r["id"] for r in get_benchmark("countdown").load()}
    assert addsub.score(rows[0], rows[0]["solution"]) == {"acc": 1.0, "acc_strict": 1.0}
    assert [b.name for b in resolve_suite("countdown")] == ["countdown"]  # the suite is unchanged


def test_an_unknown_scheme_is_refused_with_the_allowed_ones():
    with pytest.raises(ValueError, match="scheme 'mul'; allowed: full, addsub"):
        generate_countdown("test", 1, 0, scheme="mul")
