"""The project's one math answer checker, for evaluation and for RL rewards alike, in two modes.

    grade_math("The answer is \\boxed{025}", "25")                              # True
    grade_math("\\boxed{\\sqrt{242}}", "11\\sqrt2", problem="Simplify $\\sqrt{242}$.")  # False: restated
    grade_math("\\boxed{\\frac{24}{2}}", "12")                                  # True: lenient, the value is right
    grade_math("\\boxed{\\frac{24}{2}}", "12", strict=True)                     # False: left unevaluated
    grade_math_verdicts(completions, references, problems=problems)             # both modes, one pass
    extract_answer("... so \\boxed{\\frac{1}{2}}.")                             # "\\frac{1}{2}"

The rule (issue 29, round 5): credit the one answer that a reader sees, that the completion commits
to, that is of the kind asked and equals the reference; each clause is a module that says what it
reads.
1. What a reader sees (`math_hidden`): what is not shown is blanked (comments, code, phantoms,
   text in white, transparent or scaled to nothing, TeX conditionals' unselected branches, hidden
   styles and elements, folded or struck-out text, markup); a box whose content is all hidden is
   empty; text that rewrites what is shown (macro definitions) or speaks to whoever grades (a note,
   a role label such as "System:", a chat template's turn opened in the completion ("<|im_start|>"),
   an instruction about the verdict, in English or another language: `math_address`, `math_foreign`)
   leaves no answer.
2. What it commits to (`math_answer`, `math_boxes`, `math_unboxed`, `math_commit`, `math_final`,
   `math_conclusion`, `math_result`, `math_scope`, `math_retraction`, `math_ending`): the last box, else a final
   answer statement, a list of every value, concluding sentence, bold final value or last line of its
   own; every other answer of the final part (an alternative offered beside the box too) must agree with it,
   and the words of its clause must not deny, withdraw, bound or estimate it (unless asked).
3. What is asked (`math_asked`, `math_equation_form`): the unit, variable and kind of answer (no
   inequality, percent or set where none is asked, not the question's own sum), the equation form
   the question names; never the question given back (`math_nonanswer`: its expression, numbers
   side by side, a hedge, a false equation).
4. The forms a reader accepts (`math_normal`, `math_glyphs`, `math_conventions`): decimal commas, ISO
   intervals (``]2, 5[``), semicolon-separated pairs, repeating decimals, thousands separators (spaces too),
   ``\\$``, bold, spacing, a choice letter with its value, ``\\pm`` for both roots, Unicode minus,
   ``\\over``, degrees, digits of any script and full-width forms, superscripts, vulgar fractions,
   numbers in words, a decimal mark in braces (``0{.}35``), a base subscript naming the base asked.
The two modes (`Verdict.lenient`, `Verdict.strict`; `Verdict.reason` says why it was refused):
- lenient (``strict=False``, the default; evaluation's headline): any answer equal in value to the
  reference (math-verify >= 0.7; ``\\frac{24}{2}`` for 12, ``1.414214`` for ``\\sqrt2``);
- strict (``strict=True``; the RL reward's default): also worked out in the form a careful MATH
  grader demands and the question asks for (`math_strict`: nothing left to compute, radicals and
  fractions simplified, no decimal for an exact value unless asked, the ordered pair asked).
Steps in order: `math_check`. Measured against a careful reading: `harness grader-audit`
(docs/grader-probes.md). Speed: `math_answer.plain_box` answers the common completion (one box,
none of the readings' triggers) at once, and tests/benchmarks/grading/test_gate.py shows that it
decides as the full reading does.

Inputs: ``problems`` (as training and evaluation pass them; without the problem a restatement cannot
be told from an answer), ``truncated`` (a completion cut at its token limit is graded by its boxes
only), ``fallback`` ("statement", or "boxed": boxes only). Odd input never raises: a non-string
completion is no answer, a numeric reference is read as ``str()``, any other reference matches nothing.
Time: each answer gets ``timeout_s`` of wall time. In the main thread an interval timer interrupts
the check (math-verify's own ``signal.alarm`` is switched off); elsewhere a worker subprocess
(`grading_worker`) grades it and is killed when it overruns; bounded reads (`math_check`) keep the
rest linear.
"""

import threading
from collections.abc import Sequence

from benchmarks.grading.grading_worker import check_in_subprocess
from benchmarks.grading.math_check import (
    FALLBACKS,
    Extracted,
    Verdict,
    check_in_main_thread,
    clip,
    extracted_answer,
    fast_verdict,
    last_boxed_content,
    problem_text,
    reference_text,
)

DEFAULT_TIMEOUT_S = 5.0

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "FALLBACKS",
    "Extracted",
    "check_batch",
    "extract_answer",
    "grade_math",
    "grade_math_batch",
    "grade_math_verdicts",
    "last_boxed_content",
    "Verdict",
]


def _per_item(values, count: int, what: str) -> list:
    """`values` as a list of `count` items (None: `count` Nones)."""
    if values is None:
        return [None] * count
    values = list(values)
    if len(values) != count:
        raise ValueError(f"{count} completions but {len(values)} {what}")
    return values


def grade_math_verdicts(
    completions: list[str],
    references: list[str | None],
    timeout_s: float = DEFAULT_TIMEOUT_S,
    problems: Sequence[str | None] | None = None,
    *,
    fallback: str = "statement",
    truncated: Sequence[bool] | None = None,
) -> list[Verdict]:
    """Both modes' verdicts per completion in one pass, each under `timeout_s`, safe from any thread.

    `problems[i]` is the question completion i answers (None: unknown); `truncated[i]` says that
    it was cut at its token limit; `fallback` is "statement" or "boxed" (module docstring)."""
    if len(completions) != len(references):
        raise ValueError(f"{len(completions)} completions but {len(references)} references")
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")
    if fallback not in FALLBACKS:
        raise ValueError(f"unknown answer fallback {fallback!r}; allowed: {', '.join(FALLBACKS)}")
    problems = _per_item(problems, len(completions), "problems")
    cut = [False] * len(completions) if truncated is None else [bool(flag) for flag in truncated]
    if len(cut) != len(completions):
        raise ValueError(f"{len(completions)} completions but {len(cut)} truncated flags")
    if threading.current_thread() is threading.main_thread():
        return [
            check_in_main_thread(c, r, timeout_s, p, fallback, t)
            for c, r, p, t in zip(completions, references, problems, cut)
        ]
    # Off the main thread: the fast path here (bounded by construction), the rest in a worker
    # process, sent only what the checker reads so that a huge completion costs no more.
    answers = [extracted_answer(c, fallback, t) for c, t in zip(completions, cut)]
    results = [fast_verdict(answer, reference_text(r)) for answer, r in zip(answers, references)]
    slow = [i for i, result in enumerate(results) if result is None]
    if slow:
        jobs = [
            (clip(completions[i]), reference_text(references[i]), problem_text(problems[i]), fallback, cut[i])
            for i in slow
        ]
        for i, (lenient, strict, _, reason) in zip(slow, check_in_subprocess(jobs, timeout_s)):
            results[i] = Verdict(lenient, strict, answers[i], reason)  # the answer extracted here
    return results


def _mode(strict) -> bool:
    if not isinstance(strict, bool):
        raise ValueError(f"strict must be True or False, got {strict!r}")
    return strict


def check_batch(
    completions: list[str],
    references: list[str | None],
    timeout_s: float = DEFAULT_TIMEOUT_S,
    problems: Sequence[str | None] | None = None,
    *,
    fallback: str = "statement",
    truncated: Sequence[bool] | None = None,
    strict: bool = False,
) -> list[tuple[bool, Extracted | None]]:
    """(correct, extracted) per completion in one mode (`grade_math_verdicts` for both)."""
    strict = _mode(strict)
    verdicts = grade_math_verdicts(completions, references, timeout_s, problems, fallback=fallback, truncated=truncated)
    return [(verdict.strict if strict else verdict.lenient, verdict.extracted) for verdict in verdicts]


def grade_math(completion: str, reference: str, problem: str | None = None, *, strict: bool = False) -> bool:
    """True when the completion's final answer is the reference's value and an answer, not the
    question given back (and, with `strict`, worked out in the form asked for; module docstring)."""
    return check_batch([completion], [reference], problems=[problem], strict=strict)[0][0]


def grade_math_batch(
    completions: list[str],
    references: list[str],
    timeout_s: float = DEFAULT_TIMEOUT_S,
    problems: Sequence[str | None] | None = None,
    *,
    fallback: str = "statement",
    truncated: Sequence[bool] | None = None,
    strict: bool = False,
) -> list[bool]:
    """`grade_math` over pairs; in-process in the main thread, a worker process elsewhere."""
    checked = check_batch(
        completions, references, timeout_s, problems, fallback=fallback, truncated=truncated, strict=strict
    )
    return [correct for correct, _ in checked]


def extract_answer(completion: str, fallback: str = "statement") -> str | None:
    """The answer string the grader uses (an `Extracted`: also its rule and source spans), or None."""
    if fallback not in FALLBACKS:
        raise ValueError(f"unknown answer fallback {fallback!r}; allowed: {', '.join(FALLBACKS)}")
    return extracted_answer(completion, fallback)
