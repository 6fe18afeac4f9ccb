"""The math grader against a careful reading, on the graded set written for this project.

benchmarks/data/graded_set.jsonl (package data, read by `benchmarks.grading.probes.load_graded_set`) holds
(completion, reference, problem) triples, each with the verdict a careful reader gives in each
grading mode and a one-line reason: `verdict` (= `lenient`, the default mode these tests grade
with) and `strict`. The rows are real completions of the built-in models (SmolLM2-135M-Instruct on
MATH-500 and on arithmetic, the untrained tiny model on compact arithmetic, from ``harness eval``)
and hand-written probes of every failure the grader is meant to avoid (kind: restatement,
truncation, base, interval, equivalent, near_miss, split_boxes, statement). A problem from MATH-500
is named by ``problem_id`` ("math500/<row id>") and read from the benchmark data, never copied
there; ``truncated`` says that a completion was cut at its token limit (unknown, null, for the
arithmetic runs, which stop well before theirs).

The grader is run as training calls it (problem and truncation passed) and as evaluation calls it
(problem passed; the runner does not know about truncation). `tests/perf/bench_grader_agreement.py`
runs the same set through lm-eval's graders and plain math-verify.
"""

import pytest

from benchmarks.grading.math_grader import check_batch
from benchmarks.grading.probes import load_graded_set

PROBE_KINDS = {"restatement", "truncation", "base", "interval", "equivalent", "near_miss", "split_boxes", "statement"}


@pytest.fixture(scope="module")
def graded_set(data_dir) -> list[dict]:
    """The rows, each with its problem text resolved."""
    return load_graded_set(data_dir)


def _verdicts(rows: list[dict], *, pass_truncation: bool) -> list[tuple[bool, str | None]]:
    truncated = [bool(row["truncated"]) for row in rows] if pass_truncation else None
    return check_batch(
        [row["completion"] for row in rows],
        [row["reference"] for row in rows],
        problems=[row["problem"] for row in rows],
        truncated=truncated,
    )


def test_the_set_is_what_it_claims(graded_set):
    assert len(graded_set) >= 150
    assert len({row["id"] for row in graded_set}) == len(graded_set)
    for row in graded_set:
        assert isinstance(row["verdict"], bool) and row["lenient"] == row["verdict"], row["id"]
        assert isinstance(row["strict"], bool) and (row["verdict"] or not row["strict"]), row["id"]
        assert row["reason"].strip() and "\n" not in row["reason"], row["id"]
        assert isinstance(row["problem"], str) and row["problem"].strip(), row["id"]
    kinds = {row["kind"] for row in graded_set}
    assert kinds == PROBE_KINDS | {"real"}
    real = [row for row in graded_set if row["kind"] == "real"]
    assert {row["source"].split(",")[0] for row in real} == {"smollm2-135m-instruct", "tiny (random init)"}
    assert any(row["verdict"] for row in real) and not all(row["verdict"] for row in real)
    for kind in PROBE_KINDS - {"equivalent", "near_miss"}:  # answers to credit next to answers to refuse
        verdicts = [row["verdict"] for row in graded_set if row["kind"] == kind]
        assert len(verdicts) >= 5 and set(verdicts) == {True, False}, kind
    assert all(row["verdict"] for row in graded_set if row["kind"] == "equivalent")
    assert not any(row["verdict"] for row in graded_set if row["kind"] == "near_miss")


@pytest.mark.parametrize("pass_truncation", [True, False], ids=["as in training", "as in evaluation"])
def test_grader_agrees_with_the_careful_reading(graded_set, pass_truncation):
    verdicts = _verdicts(graded_set, pass_truncation=pass_truncation)
    disagreements = [row["id"] for row, (correct, _) in zip(graded_set, verdicts) if correct != row["verdict"]]
    assert 1 - len(disagreements) / len(graded_set) >= 0.98, disagreements
    # No credit where the reader gives none: no restated question, no cut-off text, nothing else.
    false_positives = [row["id"] for row, (correct, _) in zip(graded_set, verdicts) if correct and not row["verdict"]]
    assert false_positives == []


def test_restatement_and_truncation_probes_are_refused(graded_set):
    rows = [row for row in graded_set if row["kind"] in ("restatement", "truncation") and not row["verdict"]]
    assert len(rows) >= 50
    assert not any(correct for correct, _ in _verdicts(rows, pass_truncation=False))


def test_the_problem_is_what_refuses_a_restatement(graded_set):
    # Restated expressions whose value is the reference's: without the problem some pass, with it none.
    rows = [row for row in graded_set if row["kind"] == "restatement" and not row["verdict"]]
    blind = check_batch([row["completion"] for row in rows], [row["reference"] for row in rows])
    assert any(correct for correct, _ in blind)  # e.g. \boxed{19x + 1 - 4x - 81} for 15x - 80
    assert not any(correct for correct, _ in _verdicts(rows, pass_truncation=False))


def test_every_answer_records_its_rule_and_source_text(graded_set):
    for row, (_, extracted) in zip(graded_set, _verdicts(graded_set, pass_truncation=True)):
        if extracted is None:
            continue
        assert extracted.rule in ("boxed", "statement", "whole", "conclusion"), row["id"]
        assert all(span in row["completion"] for span in extracted.spans), row["id"]
