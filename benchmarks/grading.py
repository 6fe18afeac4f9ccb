"""The project's one math answer checker, for evaluation and for RL rewards alike.

    grade_math("The answer is \\boxed{025}", "25")  # True
    extract_answer("... so \\boxed{\\frac{1}{2}}.")  # "\\frac{1}{2}"
    grade_math_batch(completions, references, timeout_s=5.0)

Grading is math-verify (https://github.com/huggingface/Math-Verify, >= 0.7): the last
``\\boxed{}`` answer is preferred, the last expression of the completion is the fallback, and
the two answers are compared symbolically (numbers as numbers, order-free lists, intervals,
tuples, matrices, ``\\text{}``, units and degrees normalised away).

Fast path: when the answer and the reference are both integers ("025", "27.0", "-4", of any
length) they are compared as digit strings without sympy (arithmetic rewards, AIME, AMC); a boxed
answer written exactly as the reference is correct without sympy too.

Odd input never raises: a completion that is not a string is no answer (False, extracted None); a
numeric reference is read as ``str(reference)``; any other non-string reference matches nothing.

Time limit: every answer gets a wall-clock budget, whatever the input's size or shape. The
checking itself lives in `benchmarks.math_check`, which bounds what it reads (the tail of a
completion, a linear scan for the box, a cap on what reaches math-verify). math-verify's own
timeout uses ``signal.alarm``, which only works in the main thread, so it is switched off: in
the main thread an interval timer interrupts the grader; in any other thread the answer is
graded by a worker subprocess (`benchmarks.math_grading_worker`) that is killed when it
overruns. Either way a pathological answer scores False within ``timeout_s``.
"""

import threading

from benchmarks.math_check import check_fast, check_in_main_thread, clip, last_boxed_content, reference_text
from benchmarks.math_grading_worker import check_in_subprocess

DEFAULT_TIMEOUT_S = 5.0

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "check_batch",
    "extract_answer",
    "grade_math",
    "grade_math_batch",
    "last_boxed_content",
]


def check_batch(
    completions: list[str], references: list[str | None], timeout_s: float = DEFAULT_TIMEOUT_S
) -> list[tuple[bool, str | None]]:
    """(correct, extracted) per completion, each under `timeout_s`, safe from any thread."""
    if len(completions) != len(references):
        raise ValueError(f"{len(completions)} completions but {len(references)} references")
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")
    if threading.current_thread() is threading.main_thread():
        return [check_in_main_thread(c, r, timeout_s) for c, r in zip(completions, references)]
    # Off the main thread: the fast path here (bounded by construction), the rest in a worker
    # process, sent only what the checker reads so that a huge completion costs no more.
    results = [check_fast(c, r) for c, r in zip(completions, references)]
    slow = [i for i, result in enumerate(results) if result is None]
    if slow:
        pairs = [(clip(completions[i]), reference_text(references[i])) for i in slow]
        for i, result in zip(slow, check_in_subprocess(pairs, timeout_s)):
            results[i] = result
    return results


def grade_math(completion: str, reference: str) -> bool:
    """True when the completion's final answer equals the reference (see module docstring)."""
    return check_batch([completion], [reference])[0][0]


def grade_math_batch(completions: list[str], references: list[str], timeout_s: float = DEFAULT_TIMEOUT_S) -> list[bool]:
    """`grade_math` over pairs; in-process in the main thread, a worker process elsewhere."""
    return [correct for correct, _ in check_batch(completions, references, timeout_s)]


def extract_answer(completion: str) -> str | None:
    """The answer string the grader uses: the last boxed content, else the last expression."""
    return check_batch([completion], [None])[0][1]
