"""The project's one math answer checker, for evaluation and for RL rewards alike.

    grade_math("The answer is \\boxed{025}", "25")  # True
    extract_answer("... so \\boxed{\\frac{1}{2}}.")  # "\\frac{1}{2}"
    grade_math_batch(completions, references, timeout_s=5.0)

Grading is math-verify (https://github.com/huggingface/Math-Verify, >= 0.7): the last
``\\boxed{}`` answer is preferred, the last expression of the completion is the fallback, and
the two answers are compared symbolically (numbers as numbers, order-free lists, intervals,
tuples, matrices, ``\\text{}``, units and degrees normalised away).

Fast path: when the answer and the reference are both integers ("025", "27.0", "-4") they are
compared as numbers without sympy (arithmetic rewards, AIME, AMC); a boxed answer written
exactly as the reference is correct without sympy too.

Time limit: math-verify's own timeout uses ``signal.alarm``, which only works in the main
thread, so it is switched off here and every answer gets a wall-clock budget instead:
in the main thread an interval timer interrupts the grader; in any other thread the answer is
graded by a worker subprocess (``benchmarks.math_grading_worker``) that is killed when it
overruns. Either way a pathological expression scores False within ``timeout_s``.
"""

import functools
import logging
import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

DEFAULT_TIMEOUT_S = 5.0

# Boxed answers first (priority 0), then any LaTeX or plain expression, rightmost first.
_EXTRACTION = (LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig())
_INTEGER = re.compile(r"[+-]?\d+(?:\.0*)?")
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")

# math-verify warns on every timeout and once about the timeout we switch off on purpose.
for _name in ("math_verify", "latex2sympy2_extended"):
    logging.getLogger(_name).setLevel(logging.ERROR)


class GradingTimeout(BaseException):
    """Raised inside the grader when an answer's time budget runs out (a BaseException, so the
    ``except Exception`` blocks inside math-verify and sympy cannot swallow it)."""


def last_boxed_content(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` (or ``\\fbox{...}``) with balanced braces."""
    starts = [m.end() for m in _BOXED.finditer(text)]
    for start in reversed(starts):
        depth = 1
        for i in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                return text[start:i].strip()
    return None


def _same_integer(a: str, b: str) -> bool:
    """Both match _INTEGER, so any fractional part is zeros: compare the integer parts exactly."""
    return int(a.split(".")[0]) == int(b.split(".")[0])


@functools.lru_cache(maxsize=8192)
def _parse_reference(reference: str) -> tuple:
    return tuple(parse("\\boxed{" + reference + "}", _EXTRACTION, parsing_timeout=None))


def check_fast(completion: str, reference: str | None) -> tuple[bool, str] | None:
    """The fast path, a verdict without sympy: integer answer and integer reference compared as
    numbers, or a boxed answer identical to the reference (up to spaces); None otherwise."""
    boxed = last_boxed_content(completion)
    candidate = (boxed if boxed is not None else completion).strip().rstrip(".").strip()
    if reference is None:
        return (False, candidate) if _INTEGER.fullmatch(candidate) else None
    if _INTEGER.fullmatch(candidate) and _INTEGER.fullmatch(reference.strip()):
        return _same_integer(candidate, reference.strip()), candidate
    if boxed is not None and "".join(boxed.split()) == "".join(reference.split()):
        return True, boxed
    return None


def check_unbounded(completion: str, reference: str | None) -> tuple[bool, str | None]:
    """(correct, extracted answer) with no time limit; `reference=None` only extracts."""
    fast = check_fast(completion, reference)
    if fast is not None:
        return fast
    boxed = last_boxed_content(completion)
    predicted = parse(completion, _EXTRACTION, parsing_timeout=None)
    extracted = boxed
    if extracted is None and predicted and isinstance(predicted[-1], str):
        extracted = predicted[-1]
    if reference is None or not predicted:
        return False, extracted
    gold = list(_parse_reference(reference))
    return verify(gold, predicted, timeout_seconds=None), extracted


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise GradingTimeout in the main thread after `seconds`; restores any outer timer."""
    armed = True

    def on_alarm(signum, frame):
        if armed:
            raise GradingTimeout

    previous_handler = signal.signal(signal.SIGALRM, on_alarm)
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.monotonic()
    try:
        yield
    finally:
        armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_delay > 0:
            remaining = max(previous_delay - (time.monotonic() - started), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, remaining, previous_interval)


def check_in_main_thread(completion: str, reference: str | None, timeout_s: float) -> tuple[bool, str | None]:
    """`check_unbounded` under a wall-clock budget; a timeout or a grader crash scores False."""
    try:
        with _deadline(timeout_s):
            return check_unbounded(completion, reference)
    except GradingTimeout:
        return False, last_boxed_content(completion)
    except Exception:  # a grader crash on garbage input is a wrong answer
        return False, last_boxed_content(completion)


def check_batch(
    completions: list[str], references: list[str | None], timeout_s: float = DEFAULT_TIMEOUT_S
) -> list[tuple[bool, str | None]]:
    """(correct, extracted) per completion, each under `timeout_s`, safe from any thread."""
    if len(completions) != len(references):
        raise ValueError(f"{len(completions)} completions but {len(references)} references")
    if threading.current_thread() is threading.main_thread():
        return [check_in_main_thread(c, r, timeout_s) for c, r in zip(completions, references)]
    from benchmarks.math_grading_worker import check_in_subprocess

    results = [check_fast(c, r) for c, r in zip(completions, references)]
    slow = [i for i, result in enumerate(results) if result is None]
    if slow:
        graded = check_in_subprocess([(completions[i], references[i]) for i in slow], timeout_s)
        for i, result in zip(slow, graded):
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
