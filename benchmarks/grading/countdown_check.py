"""The Countdown checker: does a completion reach the target from the given numbers, each used once?

    grade_countdown("5*3=15,15+7=22 A:(5*3)+7", [3, 5, 7], 22)   # (True, True, "(5*3)+7")
    check_expression("7+5*3", [3, 5, 7], 22)                      # True
    check_expression("7*3+1", [3, 5, 7], 22)                      # False: 1 is not given, 5 unused

A completion writes its reasoning first and its answer last, after the final "A:". The answer is parsed
with `ast` in eval mode and only whole non-negative numbers, + - * / and parentheses are accepted
(no unary minus, powers, names or calls: anything else is a wrong answer, never evaluated). The value is
computed exactly with fractions (7/2*2 is 7; a division by zero is a wrong answer), and the numbers the
expression uses must be the given ones as a multiset: each exactly once.

Two verdicts, like the math grader's two modes: lenient (`acc`) credits a valid expression; strict
(`acc_strict`, and the RL reward by default) also needs the reasoning written out before it: at least
one step of the form "a op b=c", every step true in exact arithmetic.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from fractions import Fraction

ANSWER_MARK = "A:"
MAX_EXPRESSION_CHARS = 200  # a sane bound: the longest valid answer over 4 numbers is about 25 characters
_STEP = re.compile(r"^\s*(\d+)\s*([-+*/])\s*(\d+)\s*=\s*(\d+)\s*$")
_MAX_STEP_DIGITS = 12
_STEP_APPLY = {"+": Fraction.__add__, "-": Fraction.__sub__, "*": Fraction.__mul__}  # a written step's operators
_APPLY = {ast.Add: _STEP_APPLY["+"], ast.Sub: _STEP_APPLY["-"], ast.Mult: _STEP_APPLY["*"]}  # the answer's


def parse_spec(answer: str) -> tuple[list[int], int]:
    """("countdown:3 5 7>22") -> ([3, 5, 7], 22): the reference answer of a countdown problem."""
    body = answer.split(":", 1)[1] if ":" in answer else answer
    numbers, target = body.split(">")
    return [int(n) for n in numbers.split()], int(target)


def _value(node: ast.AST, used: list[int]) -> Fraction:
    """The exact value of a whitelisted expression tree; records the numbers it uses in `used`."""
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
        used.append(node.value)
        return Fraction(node.value)
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left, used), _value(node.right, used)
        if isinstance(node.op, ast.Div):
            if right == 0:
                raise ZeroDivisionError
            return left / right
        if type(node.op) in _APPLY:
            return _APPLY[type(node.op)](left, right)
    raise ValueError(f"not allowed in a countdown answer: {type(node).__name__}")


def check_expression(expression: str, numbers: list[int], target: int) -> bool:
    """Whether `expression` uses each of `numbers` exactly once and equals `target` exactly."""
    if not expression or len(expression) > MAX_EXPRESSION_CHARS:
        return False
    try:
        tree = ast.parse(expression.strip(), mode="eval")
        used: list[int] = []
        value = _value(tree.body, used)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError, MemoryError):
        return False
    return Counter(used) == Counter(numbers) and value == target


def _steps_hold(reasoning: str) -> bool:
    """At least one step "a op b=c", separated by commas or new lines, each true exactly."""
    steps = [s for s in re.split(r"[,\n]", reasoning) if s.strip()]
    if not steps:
        return False
    for step in steps:
        match = _STEP.match(step)
        if match is None:
            return False
        a, operation, b, c = match.groups()
        if max(len(a), len(b), len(c)) > _MAX_STEP_DIGITS:
            return False  # no true step of a countdown problem is this long (and int() refuses 4300+ digits)
        # computed from the digits, not parsed as Python: "33+05=38" is true arithmetic, while ast would
        # refuse the leading zero with a SyntaxError (which once ended a training run)
        left, right = Fraction(int(a)), Fraction(int(b))
        if operation == "/" and right == 0:
            return False
        value = left / right if operation == "/" else _STEP_APPLY[operation](left, right)
        if value != int(c):
            return False
    return True


def grade_countdown(completion: str, numbers: list[int], target: int) -> tuple[bool, bool, str | None]:
    """(lenient, strict, the extracted answer): see the module docstring."""
    if ANSWER_MARK not in completion:
        return False, False, None
    reasoning, _, answer = completion.rpartition(ANSWER_MARK)
    answer = answer.strip().splitlines()[0].strip() if answer.strip() else ""
    lenient = check_expression(answer, numbers, target)
    return lenient, lenient and _steps_hold(reasoning), answer


def grade_countdown_row(row: dict, completion: str) -> tuple[dict, str | None]:
    """A benchmark row's verdicts ({"acc", "acc_strict"}) and the extracted expression."""
    lenient, strict, answer = grade_countdown(completion, row["numbers"], row["target"])
    return {"acc": float(lenient), "acc_strict": float(strict)}, answer


def grade_countdown_batch(texts: list[str], answers: list[str], strict: bool = True) -> list[bool]:
    """Training's reward check: each text against its reference ("countdown:3 5 7>22")."""
    verdicts = []
    for text, answer in zip(texts, answers, strict=True):
        numbers, target = parse_spec(answer)
        lenient, strict_verdict, _ = grade_countdown(text, numbers, target)
        verdicts.append(strict_verdict if strict else lenient)
    return verdicts


COUNTDOWN_SUSPECTS = ("unpaid_steps",)


def countdown_suspects(completion: str, spec: str) -> list[str]:
    """The online reward check's reasons for a Countdown completion (harness.training.reward_check):
    "unpaid_steps" when the expression after the last `A:` reaches the target with each number once (the
    lenient verdict) but the steps written before it are missing or false (so the strict one refuses it):
    the answer is right and the reasoning shown for it is not. Under the lenient reward such completions
    are paid by design; their share shows how far RL lets the written steps drift from the expression."""
    numbers, target = parse_spec(spec)
    lenient, strict, _ = grade_countdown(completion, numbers, target)
    return ["unpaid_steps"] if lenient and not strict else []
