"""Countdown: reach a target from 3 (or 4) given numbers with + - * / and parentheses, each number used
once. Shared by RL training (`task.source=countdown`) and evaluation (the `countdown` benchmarks).

    rows = generate_countdown("train", count=1000, seed=0)
    rows[0]  # {"id": "countdown3-train-s0-0", "problem": "3 5 7>22:", "answer": "countdown:3 5 7>22",
             #  "numbers": [3, 5, 7], "target": 22, "solution": "5*3=15,15+7=22 A:(5*3)+7"}

The problem space: every multiset of `size` numbers from 1..MAX_NUMBER and every integer target in
MIN_TARGET..MAX_TARGET that some expression over them reaches (exact arithmetic, intermediate values
whole and positive in the canonical solution), the target not itself one of the numbers. There are many
valid expressions per problem, so the answer has to be searched for; the canonical solution is the first
one a fixed search finds, written as steps ("5*3=15,15+7=22") and then the expression after "A:".
The reward and the benchmark grade any valid expression (`benchmarks.grading.countdown_check`).

Split: a problem is held out iff sha1 of its sorted numbers and target mod 10 == 0 (as the arithmetic
generator does), so training never sees a test problem. The warm start learns from the solutions of a
minority of the training problems only (`is_demonstrated`: sha1 mod 4 == 1, a quarter of them), so RL
starts from a policy that solves some problems and has to find the rest.
Styles: "compact" (the character-level tiny-countdown model) and "natural" (chat models).
Generated, never downloaded: version "v1" of this scheme; the benchmarks are one fixed draw of the
test split (DRAW_SEED), the same for every evaluation seed.

Schemes (`SCHEMES`, `task.countdown_scheme`): which operations the canonical solutions use and how large
the numbers are. Everything above describes "full" (+ - * /, numbers 1..15), the default: its problems,
rows, ids and version are what they always were. "addsub" keeps only + and - with numbers 1..40 (3
numbers: 31,185 training problems, 8,693 of them demonstrated, 3,470 held out). Why: the 1 M-parameter
character model cannot do the multiplications of the full game, so RL there only sharpened its guesses;
with + and - the arithmetic is within its reach and the search over sign patterns remains
(docs/countdown-testbed.md, run log r16: GRPO seed 0 moved the benchmark's avg@4 from 16.7 to 37.9 with a
47% entropy fall). Its rows draw with the same seeds as the full scheme's (so r16's problems are its
problems), its ids carry the scheme ("countdown3-addsub-test-8-36-40-68"), and its benchmark,
`countdown_addsub`, has its own version ("addsub-v1"), so results of the two schemes never mix; its
draw is 2,000 problems, not 500 (sampled once each by the countdown profile: a seed's luck on each
problem, not sampling, is this task's noise, so problems buy more power than samples; run log r17). The
checker is the same for both: an answer is any valid expression, so * and / in an addsub answer that
reaches the target still count (a + / - solution always exists).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import random
from dataclasses import dataclass

from benchmarks.benchmark import Benchmark
from benchmarks.families.math_competitions import MATH_METRICS
from benchmarks.grading.countdown_check import grade_countdown_row

VERSION = "v1"
DRAW_VERSION = "v1"
DRAW_SEED = 0
DEFAULT_DRAW_ROWS = 500  # problems in a benchmark's fixed draw, unless it names another count
ADDSUB_DRAW_ROWS = 3470  # countdown_addsub: the whole held-out split (docs/countdown-testbed.md, r17, r22)
MAX_NUMBER = 15
MIN_TARGET, MAX_TARGET = 10, 99
SIZES = (3, 4)
SPLITS = ("train", "test")
STYLES = ("compact", "natural")
ANSWER_PREFIX = "countdown:"
"""Reference answers of countdown problems start with this (the numbers and the target follow), so that
the training reward knows which checker grades them (`benchmarks.grading.task_grader`)."""


@dataclass(frozen=True)
class CountdownScheme:
    """The operations the canonical solutions use and the largest number a problem gives; `version` is
    the scheme's own, in its benchmarks' version strings."""

    name: str
    operations: tuple[str, ...]
    max_number: int
    version: str


SCHEMES: dict[str, CountdownScheme] = {
    "full": CountdownScheme("full", ("+", "-", "*", "/"), MAX_NUMBER, VERSION),
    "addsub": CountdownScheme("addsub", ("+", "-"), 40, "addsub-v1"),
}
DEFAULT_SCHEME = "full"
"""The scheme of every problem, row id and result made before schemes existed."""


def get_scheme(name: str) -> CountdownScheme:
    if name not in SCHEMES:
        raise ValueError(f"unknown countdown scheme {name!r}; allowed: {', '.join(SCHEMES)}")
    return SCHEMES[name]


def _digest(numbers: tuple[int, ...], target: int) -> int:
    key = " ".join(map(str, sorted(numbers))) + f">{target}"
    return int(hashlib.sha1(key.encode()).hexdigest(), 16)


def is_held_out(numbers: tuple[int, ...], target: int) -> bool:
    return _digest(numbers, target) % 10 == 0


def is_demonstrated(numbers: tuple[int, ...], target: int) -> bool:
    """Whether the warm start may learn this training problem's solution (a quarter of them)."""
    return _digest(numbers, target) % 4 == 1


def _combine(a: int, b: int, operation: str) -> int | None:
    """a op b when it is a whole positive number, else None (the canonical solutions stay whole)."""
    if operation == "+":
        return a + b
    if operation == "-":
        return a - b if a > b else None
    if operation == "*":
        return a * b
    return a // b if b > 0 and a % b == 0 else None


@functools.cache
def _solutions(numbers: tuple[int, ...], operations: tuple[str, ...]) -> dict[int, tuple[str, str]]:
    """{reachable value: (steps, expression)} over all of `numbers` with `operations`, first found in a
    fixed order.

    Each step combines two of the remaining values (larger first) into one, until one is left."""
    found: dict[int, tuple[str, str]] = {}

    def search(values: list[tuple[int, str]], steps: list[str]) -> None:
        if len(values) == 1:
            value, expression = values[0]
            found.setdefault(value, (",".join(steps), expression))
            return
        for i, j in itertools.permutations(range(len(values)), 2):
            (a, ea), (b, eb) = values[i], values[j]
            if a < b:
                continue
            rest = [v for k, v in enumerate(values) if k not in (i, j)]
            for operation in operations:
                result = _combine(a, b, operation)
                if result is None or (operation in "*/" and b == 1 and len(values) > 2):
                    continue  # x*1, x/1 mid-way: a wasted step, never the canonical one
                left = ea if ea.isdigit() else f"({ea})"
                right = eb if eb.isdigit() else f"({eb})"
                search([*rest, (result, f"{left}{operation}{right}")], [*steps, f"{a}{operation}{b}={result}"])

    search([(n, str(n)) for n in numbers], [])
    return found


@functools.cache
def _problems(size: int, scheme: CountdownScheme) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every (sorted numbers, target) of the scheme, in a fixed order."""
    return tuple(
        (numbers, target)
        for numbers in itertools.combinations_with_replacement(range(1, scheme.max_number + 1), size)
        for target in sorted(_solutions(numbers, scheme.operations))
        if MIN_TARGET <= target <= MAX_TARGET and target not in numbers
    )


@functools.cache
def _split(size: int, split: str, scheme: CountdownScheme) -> tuple[tuple[tuple[int, ...], int], ...]:
    held_out = split == "test"
    return tuple(p for p in _problems(size, scheme) if is_held_out(*p) == held_out)


def countdown_space(size: int, split: str, scheme: str = DEFAULT_SCHEME, demonstrated: bool = False) -> int:
    """How many distinct problems the split holds (only its demonstrated ones with `demonstrated`)."""
    _check(size, split, "compact")
    pool = _split(size, split, get_scheme(scheme))
    return sum(is_demonstrated(*p) for p in pool) if demonstrated else len(pool)


def answer_spec(numbers, target: int) -> str:
    """The reference answer of a problem: "countdown:3 5 7>22"."""
    return f"{ANSWER_PREFIX}{' '.join(map(str, numbers))}>{target}"


def _prompt(numbers, target: int, style: str, scheme: CountdownScheme) -> str:
    if style == "compact":
        return f"{' '.join(map(str, numbers))}>{target}:"
    listed = ", ".join(map(str, numbers))
    operations, example = ("+ - * /", "5*3=15,15+7=22") if "*" in scheme.operations else ("+ -", "9+5=14,14-3=11")
    return (
        f"Using the numbers {listed}, each exactly once, with {operations} and parentheses, make {target}. "
        f"Write your steps first (like {example}), then the expression after 'A:'."
    )


def _row(row_id: str, numbers: tuple[int, ...], target: int, style: str, scheme: CountdownScheme) -> dict:
    steps, expression = _solutions(tuple(sorted(numbers)), scheme.operations)[target]
    return {
        "id": row_id,
        "problem": _prompt(numbers, target, style, scheme),
        "answer": answer_spec(numbers, target),
        "numbers": list(numbers),
        "target": target,
        "solution": f"{steps} A:{expression}",
    }


def _check(size: int, split: str, style: str) -> None:
    for what, value, allowed in (("size", size, SIZES), ("split", split, SPLITS), ("style", style, STYLES)):
        if value not in allowed:
            raise ValueError(f"unknown countdown {what} {value!r}; allowed: {', '.join(map(str, allowed))}")


def generate_countdown(
    split: str,
    count: int,
    seed: int,
    size: int = 3,
    style: str = "compact",
    demonstrated: bool = False,
    scheme: str = DEFAULT_SCHEME,
) -> list[dict]:
    """`count` rows, deterministic in (split, seed, size, scheme): the test split a seeded permutation
    (without replacement, capped at its size), the train split drawn with replacement (only its
    demonstrated quarter with `demonstrated`). The numbers are shown in a seeded order. A smaller count
    gives a prefix of a larger one's rows (`limit` keeps the first problems of the fixed draw). The seeds
    do not depend on the scheme; its pool and its ids do."""
    _check(size, split, style)
    chosen = get_scheme(scheme)
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    rng = random.Random(f"countdown-{size}-{split}-{seed}-{demonstrated}")
    pool = _split(size, split, chosen)
    if split == "test":  # a permutation of the whole split, so that a smaller count is a prefix
        drawn = list(pool)
        rng.shuffle(drawn)
        drawn = drawn[:count]
    else:
        pool = tuple(p for p in pool if is_demonstrated(*p)) if demonstrated else pool
        drawn = [rng.choice(pool) for _ in range(count)]
    rows = []
    for index, (numbers, target) in enumerate(drawn):
        shown = list(numbers)
        random.Random(f"countdown-order-{size}-{split}-{seed}-{demonstrated}-{index}").shuffle(shown)  # per row
        name = f"{split}-{'-'.join(map(str, numbers))}-{target}" if split == "test" else f"train-s{seed}-{index}"
        prefix = f"countdown{size}" if scheme == DEFAULT_SCHEME else f"countdown{size}-{scheme}"
        rows.append(_row(f"{prefix}-{name}", tuple(shown), target, style, chosen))
    return rows


def countdown_benchmark(
    size: int = 3, style: str = "compact", rows: int = 500, scheme: str = DEFAULT_SCHEME
) -> Benchmark:
    """The held-out split as an evaluation benchmark: one fixed draw of `rows` problems (DRAW_SEED, the
    same for every evaluation seed), graded by `benchmarks.grading.countdown_check` (lenient `acc`: the
    expression reaches the target using each number once; strict `acc_strict`: and the steps written
    before it are each right). A scheme other than the default names itself in the benchmark's name
    (countdown_addsub), version and description."""
    chosen = get_scheme(scheme)

    def generate(limit: int | None, seed: int) -> list[dict]:
        count = rows if limit is None else min(limit, rows)
        return generate_countdown("test", count, seed, size, style, scheme=scheme)

    suffix = "" if size == 3 else str(size)
    suffix += "" if style == "compact" else f"_{style}"
    suffix += "" if scheme == DEFAULT_SCHEME else f"_{scheme}"
    ops = "" if scheme == DEFAULT_SCHEME else f", {' and '.join(chosen.operations)} only, numbers 1-{chosen.max_number}"
    return Benchmark(
        name=f"countdown{suffix}",
        source="generated",
        # a draw of another size is another benchmark (its first 500 rows are the 500-row draw's)
        version=f"benchmarks.families.countdown {chosen.version}, draw {DRAW_VERSION}"
        + ("" if rows == DEFAULT_DRAW_ROWS else f" of {rows}"),
        file_name=None,
        expected_rows=None,
        required_fields=("id", "problem", "answer", "numbers", "target"),
        make_prompt=lambda row: row["problem"],
        grade=grade_countdown_row,
        metrics=MATH_METRICS,
        reference=lambda row: row["solution"],
        generate=generate,
        draw_seed=DRAW_SEED,
        description=f"Countdown with {size} numbers ({style}{ops}), a fixed draw of the held-out split",
    )
