"""Training's one entry to the graders: each reference answer picks its checker.

    grade_answers(texts, references, problems=..., truncated=..., strict=True)

A reference that starts with "countdown:" (`benchmarks.families.countdown.answer_spec`) is a Countdown
problem and goes to `countdown_check`; every other reference is a math answer for `math_grader`. The RL
reward (`harness.training.rewards`) and the held-out accuracy (`harness.training.heldout`) call this, so
training and evaluation grade a task with the same checker.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchmarks.grading.countdown_check import grade_countdown_batch
from benchmarks.grading.math_grader import DEFAULT_TIMEOUT_S, grade_math_batch

COUNTDOWN_PREFIX = "countdown:"


def grade_answers(
    texts: list[str],
    references: list[str],
    *,
    problems: Sequence[str | None] | None = None,
    truncated: Sequence[bool] | None = None,
    strict: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> list[bool]:
    """Whether each text answers its reference, by the reference's checker (order kept)."""
    countdown = [i for i, reference in enumerate(references) if reference.startswith(COUNTDOWN_PREFIX)]
    math = [i for i in range(len(references)) if not references[i].startswith(COUNTDOWN_PREFIX)]
    verdicts = [False] * len(references)
    if countdown:
        graded = grade_countdown_batch([texts[i] for i in countdown], [references[i] for i in countdown], strict)
        for i, verdict in zip(countdown, graded):
            verdicts[i] = verdict
    if math:
        graded = grade_math_batch(
            [texts[i] for i in math],
            [references[i] for i in math],
            timeout_s=timeout_s,
            problems=None if problems is None else [problems[i] for i in math],
            truncated=None if truncated is None else [truncated[i] for i in math],
            strict=strict,
        )
        for i, verdict in zip(math, graded):
            verdicts[i] = verdict
    return verdicts
