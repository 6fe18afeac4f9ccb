"""harness.reports.table1.build on fabricated MLflow runs: only the runs of the expected settings count, and
every row and seed without its runs is listed above the table with why."""

import csv
import json

import pytest

from harness.profiles import EVAL_EXPERIMENT, PROFILES, TRAIN_EXPERIMENT
from harness.reports.table1.build import build_report, collect
from harness.reports.table1.rows import ROWS

SUMMARY = {"history": [{"step": 1, "entropy": 0.5}], "stability": {"end_entropy": 0.5}}


def fabricate(log_run, client, tmp_path, tags, train_key, eval_key, correct, entropy):
    """One trained policy (summary.json) and its evaluation: `correct` of 4 problems right."""
    summary = {"history": [{"step": 1, "entropy": entropy}], "stability": {"end_entropy": entropy}}
    log_run(client, TRAIN_EXPERIMENT, {**tags, "table.hash": train_key}, {"summary.json": summary}, tmp_path)
    results = {"benchmarks": {"arith": {"primary_metric": "acc"}}}
    samples = [{"benchmark": "arith", "id": i, "scores": {"acc": float(i < correct)}} for i in range(4)]
    files = {"eval/results.json": results, "eval/samples.jsonl": samples}
    eval_tags = {**tags, "table.hash": train_key, "table.eval_hash": eval_key}
    log_run(client, EVAL_EXPERIMENT, eval_tags, files, tmp_path)


def test_runs_of_other_steps_or_limits_in_the_store_never_mix_in(store, log_run, tmp_path):
    uri, client = store
    grpo = next(r for r in ROWS if r.label == "GRPO")
    tags = {"table.profile": "tiny", "table.row": "GRPO", "table.seed": "0"}
    fabricate(log_run, client, tmp_path, tags, "steps600", "limit500", correct=3, entropy=0.4)  # the wanted run
    fabricate(log_run, client, tmp_path, tags, "steps4", "limit40", correct=1, entropy=0.9)  # newer, other steps
    # the wanted training evaluated again with another limit, newest of all
    results = {"benchmarks": {"arith": {"primary_metric": "acc"}}}
    samples = [{"benchmark": "arith", "id": i, "scores": {"acc": 0.0}} for i in range(2)]
    eval_tags = {**tags, "table.hash": "steps600", "table.eval_hash": "limit2"}
    files = {"eval/results.json": results, "eval/samples.jsonl": samples}
    log_run(client, EVAL_EXPERIMENT, eval_tags, files, tmp_path)

    results, histories, heldout, benchmarks, starting = collect(
        PROFILES["tiny"], [grpo], [0], uri, {("GRPO", 0): ("steps600", "limit500")}
    )
    assert results["GRPO"][0].scores == {"arith": {"0": 1.0, "1": 1.0, "2": 1.0, "3": 0.0}}
    assert results["GRPO"][0].figures == {"end_entropy": 0.4} and histories["GRPO"][0][0]["entropy"] == 0.4
    assert benchmarks == ["arith"] and starting == {}  # runs without the starting_policy tag name none
    missing, *_ = collect(PROFILES["tiny"], [grpo], [0], uri, {("GRPO", 0): ("steps100", "limit500")})
    assert missing == {}  # no run of these settings: the cell stays empty rather than borrowing one


def test_a_failed_job_is_listed_above_the_table_with_its_error_and_log(store, log_run, tmp_path):
    uri, client = store
    rows = [r for r in ROWS if r.label in ("GRPO", "DAPO")]
    tags = {"table.profile": "tiny", "table.row": "GRPO", "table.seed": "0"}
    fabricate(log_run, client, tmp_path, tags, "grpo-k", "grpo-e", correct=2, entropy=0.5)
    failed = {("DAPO", 0): "train failed: harness train: error: boom (log: logs/DAPO.train.log)"}
    expected = {("GRPO", 0): ("grpo-k", "grpo-e"), ("DAPO", 0): ("dapo-k", "dapo-e")}
    out = tmp_path / "out"
    out.mkdir()
    report = build_report(PROFILES["tiny"], rows, [0], out, uri, expected, lambda line: None, failed)
    assert report["missing"] == ["DAPO seed 0: " + failed["DAPO", 0]]
    markdown = (out / "table1.md").read_text()
    assert markdown.index("**Missing from this table**") < markdown.index("| GRPO | 1 |")  # seen before the table
    assert "- DAPO seed 0: train failed: harness train: error: boom (log: logs/DAPO.train.log)" in markdown
    assert "DAPO seed 0: train failed: harness train: error: boom" in (out / "table1.html").read_text()


def test_the_report_shows_strict_beside_lenient_and_the_grader_audit_line(store, log_run, tmp_path, monkeypatch):
    import harness.reports.table1.sections.grader_audit_section as audit_section

    monkeypatch.setattr(audit_section, "audit_line", lambda: "Grader audit: (the audit's line)")
    uri, client = store
    grpo = next(r for r in ROWS if r.label == "GRPO")
    tags = {"table.profile": "tiny", "table.row": "GRPO", "table.seed": "0"}
    log_run(client, TRAIN_EXPERIMENT, {**tags, "table.hash": "strict-k"}, {"summary.json": SUMMARY}, tmp_path)
    results = {"benchmarks": {"math": {"primary_metric": "acc"}}}
    samples = [{"benchmark": "math", "id": i, "scores": {"acc": 1.0, "acc_strict": float(i < 1)}} for i in range(4)]
    files = {"eval/results.json": results, "eval/samples.jsonl": samples}
    log_run(client, EVAL_EXPERIMENT, {**tags, "table.hash": "strict-k", "table.eval_hash": "strict-e"}, files, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    build_report(PROFILES["tiny"], [grpo], [0], out, uri, {("GRPO", 0): ("strict-k", "strict-e")}, print)
    markdown = (out / "table1.md").read_text()
    assert "Grader audit: (the audit's line)" in markdown and "strict beside" in markdown
    one_seed = "(sd n/a (1 seed))"  # no spread is measured on one seed
    assert f"| GRPO | 1 | 100.0 ± 0.0 {one_seed}, strict 25.0 | 100.0 {one_seed}, strict 25.0 |" in markdown
    assert "<p class='audit'>Grader audit: (the audit&#x27;s line)</p>" in (out / "table1.html").read_text()
    header, line = (row.split(",") for row in (out / "table1.csv").read_text().splitlines()[:2])
    assert dict(zip(header, line))["math_strict_mean"] == "0.25" and line[-1] == "0.25"  # no difference columns


def test_the_report_compares_every_row_with_the_baseline_and_draws_accuracy_over_training(store, log_run, tmp_path):
    """Three rows x two seeds of 12 problems (2 samples each) and 60-step runs validated once at step 49:
    the differences table, the detectable difference, Holm-adjusted accuracy claims, CSV columns after the
    old ones, the HTML section, scores.json, and the accuracy figure drawn from its three points per run."""
    uri, client = store
    rows = [r for r in ROWS if r.label in ("GRPO", "DAPO", "CE-GPPO(0.5,1)")]
    expected = {}
    for row, correct in zip(rows, (4, 6, 10)):  # of 12 problems, on both samples
        for seed in (0, 1):
            tags = {"table.profile": "tiny", "table.row": row.label, "table.seed": str(seed)}
            key = f"cmp-{row.label}-{seed}"
            history = [{"step": s, "entropy": 0.5} for s in range(60)]
            history[49]["val_heldout_greedy_accuracy"] = 0.4 + correct / 100
            summary = {
                "history": history,
                "stability": {"end_entropy": 0.5 + seed / 100},
                "heldout_before": {"greedy_accuracy": 0.4},
                "heldout_after": {"greedy_accuracy": 0.4 + correct / 50},
                "steps_completed": 60,
            }
            log_run(client, TRAIN_EXPERIMENT, {**tags, "table.hash": key}, {"summary.json": summary}, tmp_path)
            results = {"benchmarks": {"arith": {"primary_metric": "acc"}}}
            hits = correct + seed  # the seeds differ a little
            samples = [
                {"benchmark": "arith", "id": i, "scores": {"acc": float((i + j) % 12 < hits)}}
                for i in range(12)
                for j in range(2)
            ]
            files = {"eval/results.json": results, "eval/samples.jsonl": samples}
            log_run(client, EVAL_EXPERIMENT, {**tags, "table.hash": key, "table.eval_hash": key + "e"}, files, tmp_path)
            expected[row.label, seed] = (key, key + "e")
    out = tmp_path / "out"
    out.mkdir()
    report = build_report(PROFILES["tiny"], rows, [0, 1], out, uri, expected, lambda line: None)
    markdown = (out / "table1.md").read_text()
    assert "### Difference to GRPO, points, 95% interval" in markdown
    assert (
        "| DAPO | paired, 2 seeds | +16.7 [" in markdown and "| CE-GPPO(0.5,1) | paired, 2 seeds | +50.0 [" in markdown
    )
    assert "Smallest difference this budget detects (80% power, 5% level; 2 seeds x 4 samples" in markdown
    assert "arith_l2_compact" not in markdown and "arith " in markdown.split("Smallest difference")[1]
    assert "- CE-GPPO(0.5,1) beats GRPO on Avg: **" in markdown and "across the 2 accuracy claims" in markdown
    assert markdown.index("beats GRPO on Avg") < markdown.index("GRPO's entropy ends below")
    names, *lines = csv.reader((out / "table1.csv").read_text().splitlines())
    assert names.index("Avg_strict_mean") < names.index("diff_baseline") and names[-1] == "Avg_diff_p"
    ce = dict(zip(names, next(line for line in lines if line[0] == "CE-GPPO(0.5,1)")))
    assert float(ce["Avg_diff_pts"]) == pytest.approx(50.0) and ce["diff_paired"] == "true"
    page = (out / "table1.html").read_text()
    assert "<h3>Difference to GRPO, points, 95% interval</h3>" in page and '<td class="above">+50.0 [' in page
    scores = json.loads((out / "scores.json").read_text())
    assert scores["samples"] == 4 and scores["trained"] == ["GRPO", "DAPO", "CE-GPPO(0.5,1)"]
    assert scores["rows"]["GRPO"]["arith"]["1"]["0"] == 1.0
    assert (out / "figures" / "accuracy.png").is_file() and "Accuracy over training is not drawn" not in markdown
    assert len(report["differences"].comparisons) == 2
