"""The project's one math answer checker, for evaluation and for RL rewards alike, in two modes.

    grade_math("The answer is \\boxed{025}", "25")                              # True
    grade_math("\\boxed{\\sqrt{242}}", "11\\sqrt2", problem="Simplify $\\sqrt{242}$.")  # False: restated
    grade_math("\\boxed{\\frac{24}{2}}", "12")                                  # True: lenient, the value is right
    grade_math("\\boxed{\\frac{24}{2}}", "12", strict=True)                     # False: left unevaluated
    grade_math_verdicts(completions, references, problems=problems)             # both modes, one pass
    extract_answer("... so \\boxed{\\frac{1}{2}}.")                             # "\\frac{1}{2}"

The rule (grading round 3, issue 29): credit only the one answer a reader sees and the completion
commits to.
1. Read what a reader sees (`benchmarks.grading.math_hidden`): comments (LaTeX, HTML, Markdown
   ``[//]: #``), ``\\iffalse``, the comment and verbatim environments, code, phantoms, text in white,
   transparent or scaled to nothing (any colour model), elements never shown (script, style,
   template), hidden (``display:none``, ``hidden``, off the page) or folded (``<details>``),
   footnotes, struck-out text and markup tags are blanked. A completion that defines or redefines
   macros (``\\def``, ``\\newcommand``, ``\\NewDocumentCommand``, ``\\csname``), or speaks to the
   grader in its first line or final part (a note, greeting or line to whoever grades, a fake system
   message, an instruction about credit), gives no answer.
2. Collect what it commits to in its final part (`benchmarks.grading.math_commit`): every box,
   answer statement ("the final answer is 13", "Final: 13") and bold final value of the answer's
   paragraph (and the one before a lone box) to the end. Words are read by clause scope
   (`benchmarks.grading.math_scope`): a box that its own clause denies (a negating particle, a
   predicate of falsity or rejection, before or after it, with any inflection: "isn't", "I reject",
   "fails", "is ruled out", "would be incorrect", "not equal to"), a first guess or one called a
   mistake is set aside, unless the negation reaches another value first ("5 does not divide 24,
   so"); a box inside a box, an either/or or nothing left commits to no answer; a bound ("at most",
   "no more than", "or fewer", "exceeds") or an estimate ("roughly", "give or take") of the box is
   refused unless the question asks for one. The answer is credited only when every other
   committed answer equals it in value. Without a box, an answer statement, a bare answer, a
   concluding sentence or clause, or a bold last line naming one number.
3. The answer must be of the kind asked (`benchmarks.grading.math_asked`): the unit (in or right
   after the box) and variable asked, no inequality or approximation marker (in both modes), no
   percent or set where none is asked, not the question's sum given back; strict mode also wants the
   equation form and ordered pair asked.
4. Read typographic variants as one symbol (`benchmarks.grading.math_normal.typographic`): Unicode
   minus and root, ``\\over``, degrees written any way, a number in ``\\text{}``.
5. Then the value and form checks of the two modes below.

The two modes. Both refuse what is no answer, whatever its value (`benchmarks.grading.math_nonanswer`,
`benchmarks.grading.math_hidden`): the question given back (an expression of the problem, token for token
or in another form found by value: "Expand $(x-1)(x+4)$" answered ``(x+4)(x-1)``, "Simplify
$\\sqrt{75}$" answered ``75^{1/2}``, "Compute $99^2+99+1$" answered ``9801 + 100``), numbers side by
side (``9\\;6`` for 9 + 6), hedges (``15\\text{ (or 16)}``, "approximately", ``\\approx``), false
equations (``3 = 12``), an answer retracted after its box ("wait, that is wrong"), a box hidden in a
``%`` comment, a ``\\phantom{}``, a code block or an HTML comment, a completion cut at its token limit
that has no box.
- lenient (``strict=False``, the default; evaluation's headline, as the field's usual evaluation with
  math-verify): any answer equal in value to the reference is right: ``\\frac{24}{2}`` for 12,
  ``1.414214`` for ``\\sqrt2`` (math-verify compares decimals to 6 places), ``\\sqrt8`` for ``2\\sqrt2``,
  a mixed number ``2\\frac13`` for ``\\frac73``.
- strict (``strict=True``; the RL reward's default, `harness.training.rewards`): also the worked-out form a
  careful MATH grader demands (`benchmarks.grading.math_strict`): no arithmetic or operation left undone
  (``\\frac{24}{2}``, ``2^{10}``, ``\\binom62``, ``3!``, ``\\sqrt{144}``, ``\\log_2 8``, ``\\frac{d}{dx}``,
  ``\\sum``), no decimal for an exact value unless a decimal or rounding is asked for, radicals
  simplified and out of the denominator, fractions in lowest terms, no mixed number, and the form
  the question asks for ("common fraction", "simplest radical form", "in terms of $\\pi$", "interval
  notation", "to the nearest hundredth", "expand", "what percent").
Both credit what a careful reader reads as the reference (`benchmarks.grading.math_normal`): thousands
separators (``1{,}000{,}000``, ``1\\,000``), ``\\$2{,}500``, ``\\mathbf{12}``, ``\\hspace{2pt}12``, a
multiple-choice letter with its value (``\\textbf{(C)}\\ 12``), ``\\frac{-1\\pm\\sqrt5}{2}`` for both
roots, and an answer statement followed by a check that confirms it.
`Verdict.reason` says why an answer was refused. `harness grader-audit` measures both modes against a
careful reading on the graded set and the reward-hack probes (benchmarks/data/, docs/grader-probes.md).

What counts as an answer (`benchmarks.grading.math_answer`): the last ``\\boxed{}`` (with the boxes of an
answer split over several), else, with the default fallback "statement", an answer statement that
ends the completion ("The final answer is X."), a completion that is nothing but an answer ("52",
"7 + 45 = 52") or a last sentence that ends on its result ("..., which gives 136."). Fallback
"boxed" keeps the boxes only. A completion cut at its token limit (``truncated``) is graded by its
boxes only. Nothing else is read: a completion that stops in mid-reasoning ("... so 9") has no
answer. The `Extracted` answer says which rule found it and the text it was read from.

When it is right (`benchmarks.grading.math_check`, which lists the steps): the same integer, the reference's
own text, or equal in value by math-verify (https://github.com/huggingface/Math-Verify, >= 0.7;
inequalities in one variable read as intervals), provided that it is an answer and not the question:
pass the problem, as training and evaluation do, or restatements cannot be told from answers;
numerals with a base subscript must be the reference's digits in the reference's base.

Odd input never raises: a completion that is not a string is no answer (False, extracted None); a
numeric reference is read as ``str(reference)``; any other non-string reference matches nothing; a
problem that is not a string is no problem.

Time limit: every answer gets a wall-clock budget, whatever the input's size or shape. The
checking itself lives in `benchmarks.grading.math_check`, which bounds what it reads (the tail of a
completion, the head of a problem, a linear scan for the boxes, a cap on what reaches
math-verify). math-verify's own timeout uses ``signal.alarm``, which only works in the main
thread, so it is switched off: in the main thread an interval timer interrupts the grader; in any
other thread the answer is graded by a worker subprocess (`benchmarks.grading.grading_worker`) that
is killed when it overruns. Either way a pathological answer scores False within ``timeout_s``.
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
