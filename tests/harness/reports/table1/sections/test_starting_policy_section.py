"""Table 1's starting-policy line: one sentence when every row and seed started from the same policy, a plain
warning listing which started from which when they differ, a csv column, and nothing for stores whose runs
predate the tag."""

import csv

from harness.profiles import EVAL_EXPERIMENT, PROFILES, TRAIN_EXPERIMENT
from harness.reports.table1.build import build_report
from harness.reports.table1.rows import ROWS
from harness.reports.table1.sections.starting_policy_section import NOT_RECORDED
from harness.tracking import STARTING_POLICY_TAG

POLICY_A = "warm start aaaa11112222 of tiny (greedy held-out 0.370 after 193 steps)"
POLICY_B = "warm start bbbb33334444 of tiny (greedy held-out 0.035 after 400 steps)"


def report(new_store, log_run, tmp_path, starts: dict):
    """The report of base + GRPO on seeds 0 and 1; `starts[(label, seed)]` is the starting_policy tag of the
    run that carries it (the training run, the evaluation run for the base row), absent: no tag."""
    uri, client = new_store(tmp_path)
    expected = {}
    for label in ("base", "GRPO"):
        for seed in (0, 1):
            tags = {"table.profile": "tiny", "table.row": label, "table.seed": str(seed)}
            start = {STARTING_POLICY_TAG: starts[label, seed]} if (label, seed) in starts else {}
            key = f"{label}-{seed}"
            if label != "base":
                summary = {"history": [{"step": 1, "entropy": 0.5}], "stability": {"end_entropy": 0.5}}
                log_run(
                    client, TRAIN_EXPERIMENT, {**tags, "table.hash": key, **start}, {"summary.json": summary}, tmp_path
                )
            samples = [{"benchmark": "arith", "id": i, "scores": {"acc": float(i < 2 + seed)}} for i in range(4)]
            files = {
                "eval/results.json": {"benchmarks": {"arith": {"primary_metric": "acc"}}},
                "eval/samples.jsonl": samples,
            }
            eval_tags = {**tags, "table.hash": key, "table.eval_hash": key + "e", **(start if label == "base" else {})}
            log_run(client, EVAL_EXPERIMENT, eval_tags, files, tmp_path)
            expected[label, seed] = (None if label == "base" else key, key + "e")
    out = tmp_path / "out"
    out.mkdir()
    rows = [r for r in ROWS if r.label in ("base", "GRPO")]
    printed: list[str] = []
    found = build_report(PROFILES["tiny"], rows, [0, 1], out, uri, expected, printed.append, baseline="GRPO")
    return found, out, printed


def starting_column(out) -> dict[str, str]:
    names, *lines = csv.reader((out / "table1.csv").read_text().splitlines())
    return {line[0]: line[names.index("starting_policy")] for line in lines}


def test_one_starting_policy_is_named_once_above_the_table(new_store, log_run, tmp_path):
    starts = {(label, seed): POLICY_A for label in ("base", "GRPO") for seed in (0, 1)}
    found, out, printed = report(new_store, log_run, tmp_path, starts)
    assert found["starting_policy"].same
    markdown = (out / "table1.md").read_text()
    line = f"Starting policy of every row and seed: {POLICY_A}."
    assert markdown.index(line) < markdown.index("| base |") and "different starting policies" not in markdown
    assert line in (out / "table1.html").read_text() and line in printed
    assert starting_column(out) == {"base": POLICY_A, "GRPO": POLICY_A}


def test_different_starting_policies_are_said_plainly_with_who_started_where(new_store, log_run, tmp_path):
    starts = {("base", 0): POLICY_A, ("base", 1): POLICY_A, ("GRPO", 0): POLICY_A, ("GRPO", 1): POLICY_B}
    _, out, printed = report(new_store, log_run, tmp_path, starts)
    markdown = (out / "table1.md").read_text()
    assert "**Rows and seeds started from 2 different starting policies" in markdown
    assert f"- {POLICY_A}: base seeds 0, 1; GRPO seed 0\n" in markdown
    assert f"- {POLICY_B}: GRPO seed 1\n" in markdown
    assert markdown.index(POLICY_B) < markdown.index("| base |")
    assert starting_column(out) == {"base": POLICY_A, "GRPO": f"seed 0: {POLICY_A} | seed 1: {POLICY_B}"}
    assert any("2 different starting policies" in text for text in printed)


def test_a_run_without_the_tag_counts_as_not_recorded(new_store, log_run, tmp_path):
    starts = {("base", 0): POLICY_A, ("base", 1): POLICY_A, ("GRPO", 0): POLICY_A}
    _, out, _ = report(new_store, log_run, tmp_path, starts)
    assert f"- {NOT_RECORDED}: GRPO seed 1" in (out / "table1.md").read_text()


def test_a_store_from_before_the_tag_has_no_starting_policy_line(new_store, log_run, tmp_path):
    found, out, _ = report(new_store, log_run, tmp_path, {})
    assert "starting_policy" not in found
    assert "Starting policy" not in (out / "table1.md").read_text()
    assert "starting_policy" not in (out / "table1.csv").read_text()
