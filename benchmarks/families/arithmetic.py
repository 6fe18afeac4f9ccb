"""Seeded synthetic arithmetic, shared by RL training (rewards) and evaluation (arith_l* benchmarks).

    rows = generate_arithmetic(level=2, split="train", count=1000, seed=0, style="compact")
    rows[0]  # {"id": "arith_l2-train-s0-0", "problem": "07+45=", "answer": "52", "expression": "07+45"}

Levels (operands drawn uniformly; the expression is the zero-padded canonical form):
  1  a+b, one-digit operands                    "3+4"       100 problems
  2  a+b, two-digit operands zero-padded        "07+45"     10,000 problems
  3  a+b, three-digit operands zero-padded      "007+450"   1,000,000 problems
  4  mixed, each operation with probability 1/3 (test: the held-out problems of all three):
     a+b two-digit, a-b two-digit with a >= b,  "07+45", "45-07", "7*45"
     d*n one digit times two digits             16,050 problems in all
Styles: "compact" -> "07+45=" (the character-level tiny model), "natural" ->
"What is 7 + 45? Answer with just the number." (chat models such as SmolLM2).
Answers are plain integer strings ("52").

Split: a problem is held out (test) iff sha1(expression) mod 10 == 0, so training never sees a
test problem. Test rows are a seeded permutation of the held-out set (without replacement,
`count` capped at its size); train rows are drawn with replacement from the other 90%.
Generated, never downloaded: version "v1" of this scheme. An evaluation benchmark (`arith_l*`)
is one fixed draw of the test split (seed DRAW_SEED, whatever the evaluation seed): "draw v2";
draw v1 permuted the held-out problems with the evaluation seed, so seeds shared few problems.
"""

import functools
import hashlib
import random
from collections.abc import Iterator

from benchmarks.benchmark import Benchmark
from benchmarks.families.math_competitions import MATH_METRICS, grade_math_row, same_math_answer

LEVELS = (1, 2, 3, 4)
SPLITS = ("train", "test")
STYLES = ("compact", "natural")
VERSION = "v1"
DRAW_VERSION = "v2"
DRAW_SEED = 0
"""The one seed every arith_l* benchmark draws its problems with (draw v2)."""

_OPERATIONS = {1: ("+",), 2: ("+",), 3: ("+",), 4: ("+", "-", "*")}
_DIGITS = {1: 1, 2: 2, 3: 3, 4: 2}


def _check_choice(what: str, value, allowed: tuple) -> None:
    if value not in allowed:
        raise ValueError(f"unknown arithmetic {what} {value!r}; allowed: {', '.join(map(str, allowed))}")


def is_held_out(expression: str) -> bool:
    """The split rule: held out for testing iff sha1(expression) mod 10 == 0."""
    return int(hashlib.sha1(expression.encode()).hexdigest(), 16) % 10 == 0


def _expression(level: int, operation: str, a: int, b: int) -> str:
    width = _DIGITS[level]
    if operation == "*":  # one digit times two digits
        return f"{a}*{b:0{width}d}"
    return f"{a:0{width}d}{operation}{b:0{width}d}"


def _operand_pairs(level: int, operation: str) -> Iterator[tuple[int, int]]:
    size = 10 ** _DIGITS[level]
    if operation == "*":
        return ((d, n) for d in range(10) for n in range(size))
    if operation == "-":
        return ((a, b) for a in range(size) for b in range(a + 1))
    return ((a, b) for a in range(size) for b in range(size))


def _problem_count(level: int, operation: str) -> int:
    size = 10 ** _DIGITS[level]
    return {"*": 10 * size, "-": size * (size + 1) // 2, "+": size * size}[operation]


def _random_operands(level: int, operation: str, rng: random.Random) -> tuple[int, int]:
    size = 10 ** _DIGITS[level]
    if operation == "*":
        return rng.randrange(10), rng.randrange(size)
    while True:  # rejection keeps a-b uniform over the pairs with a >= b
        a, b = rng.randrange(size), rng.randrange(size)
        if operation == "+" or a >= b:
            return a, b


@functools.cache
def _held_out_expressions(level: int) -> tuple[str, ...]:
    return tuple(
        expression
        for operation in _OPERATIONS[level]
        for a, b in _operand_pairs(level, operation)
        if is_held_out(expression := _expression(level, operation, a, b))
    )


def arithmetic_space(level: int, split: str) -> int:
    """How many distinct problems the split holds at this level."""
    _check_choice("level", level, LEVELS)
    _check_choice("split", split, SPLITS)
    held_out = len(_held_out_expressions(level))
    if split == "test":
        return held_out
    return sum(_problem_count(level, op) for op in _OPERATIONS[level]) - held_out


def _evaluate(expression: str) -> int:
    for operation, apply in (("+", int.__add__), ("-", int.__sub__), ("*", int.__mul__)):
        if operation in expression:
            a, b = expression.split(operation)
            return apply(int(a), int(b))
    raise ValueError(f"not an arithmetic expression: {expression!r}")


def _problem(expression: str, style: str) -> str:
    if style == "compact":
        return expression + "="
    for operation in "+-*":
        if operation in expression:
            a, b = expression.split(operation)
            return f"What is {int(a)} {operation} {int(b)}? Answer with just the number."
    raise ValueError(f"not an arithmetic expression: {expression!r}")


def _row(row_id: str, expression: str, style: str) -> dict:
    return {
        "id": row_id,
        "problem": _problem(expression, style),
        "answer": str(_evaluate(expression)),
        "expression": expression,
    }


def generate_arithmetic(level: int, split: str, count: int, seed: int, style: str = "compact") -> list[dict]:
    """`count` rows {"id", "problem", "answer", "expression"}, deterministic in (level, split, seed)."""
    _check_choice("level", level, LEVELS)
    _check_choice("split", split, SPLITS)
    _check_choice("style", style, STYLES)
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    rng = random.Random(f"arithmetic-{level}-{split}-{seed}")
    if split == "test":
        held_out = list(_held_out_expressions(level))
        rng.shuffle(held_out)
        return [_row(f"arith_l{level}-test-{e}", e, style) for e in held_out[:count]]
    rows = []
    while len(rows) < count:
        operation = rng.choice(_OPERATIONS[level])
        expression = _expression(level, operation, *_random_operands(level, operation, rng))
        if not is_held_out(expression):
            rows.append(_row(f"arith_l{level}-train-s{seed}-{len(rows)}", expression, style))
    return rows


def arithmetic_benchmark(level: int, style: str = "natural", size: int = 500) -> Benchmark:
    """The held-out test split as an evaluation benchmark: `size` rows (fewer at levels 1, 2),
    one fixed permutation of the held-out problems (DRAW_SEED, the same for every evaluation
    seed, so every seed and row is paired on every problem); graded as the math
    benchmarks are (`math_competitions.grade_math_row`: lenient `acc` and strict `acc_strict`) with
    the problem passed (answering "7 + 45" restates it) and the "statement" fallback ("52" or "The
    answer is 52." without a box)."""

    def generate(limit: int | None, seed: int) -> list[dict]:
        return generate_arithmetic(level, "test", size if limit is None else min(limit, size), seed, style)

    suffix = "" if style == "natural" else f"_{style}"
    return Benchmark(
        name=f"arith_l{level}{suffix}",
        source="generated",
        version=f"benchmarks.families.arithmetic {VERSION}, draw {DRAW_VERSION}",
        file_name=None,
        expected_rows=None,
        required_fields=("id", "problem", "answer", "expression"),
        make_prompt=lambda row: row["problem"],
        grade=grade_math_row,
        metrics=MATH_METRICS,
        reference=lambda row: row["answer"],
        same_answer=same_math_answer,
        generate=generate,
        draw_seed=DRAW_SEED,
        description=f"synthetic arithmetic level {level} ({style}), held-out test split",
    )
