"""The answer classes of one problem's k samples: which samples gave the same answer, for maj@k.

    answer_classes(["42", "42.0", None, "7"], [True, True, False, False], same)   # [0, 0, None, 1]

A class is a number per sample, counted from 0 in the order classes first appear among the samples;
None for a sample that gave no answer (it abstains from the vote). Two answers are the same when the
benchmark's grader says so (`Benchmark.same_answer`, for math the project's one grader: one answer
graded against the other as its reference), never by a second answer checker:

1. every sample the grader credited is in one class: each equals the reference, hence each other;
2. the wrong answers are grouped by their text, blanks removed (identical answers are the same);
3. those groups are merged by `same(first answer of an earlier class, first answer of this group)`,
   each group joining the earliest class that matches, only when the vote can turn on it: with c
   correct and w wrong samples that answer, the correct class wins outright when c > w and cannot
   win when c = 0, so the grader is asked only when 0 < c <= w (at most w^2 / 2 comparisons, most of
   them the grader's integer fast path on competition answers).

The vote itself (`benchmarks.eval_metrics.majority_correct`) then needs only the classes and the
verdicts, which samples.jsonl records (`answer_class`, `correct`): maj@k can be recomputed from it.
"""

from collections.abc import Callable, Sequence

SameAnswer = Callable[[str, str], bool]


def answer_classes(answers: Sequence[str | None], correct: Sequence[bool], same: SameAnswer) -> list[int | None]:
    """The class of each sample's answer (None: no answer); see the module docstring."""
    if len(answers) != len(correct):
        raise ValueError(f"{len(answers)} answers but {len(correct)} verdicts")
    keys: list[str | None] = []  # a key per sample: "=" for the reference's class, else the answer's text
    for answer, right in zip(answers, correct):
        if answer is None:
            keys.append(None)
        else:
            keys.append("=" if right else "#" + "".join(str(answer).split()))
    wrong = [key for key in keys if key is not None and key != "="]
    right_count = len(keys) - len(wrong) - keys.count(None)
    if 0 < right_count <= len(wrong):
        keys = _merged(keys, answers, same)
    numbers: dict[str, int] = {}
    return [None if key is None else numbers.setdefault(key, len(numbers)) for key in keys]


def _merged(keys: list[str | None], answers: Sequence[str | None], same: SameAnswer) -> list[str | None]:
    """`keys` with each wrong text group renamed to the earliest earlier group the grader equates it with."""
    first_answer: dict[str, str] = {}  # text group -> the answer of its first sample
    for key, answer in zip(keys, answers):
        if key is not None and key != "=":
            first_answer.setdefault(key, str(answer))
    renamed: dict[str, str] = {}
    leaders: list[str] = []  # groups that head a class, in order of first appearance
    for group, answer in first_answer.items():
        leader = next((lead for lead in leaders if same(first_answer[lead], answer)), None)
        if leader is None:
            leaders.append(group)
            leader = group
        renamed[group] = leader
    return [key if key is None or key == "=" else renamed[key] for key in keys]
