"""The Table 1 report's files and terminal lines, byte for byte, against golden copies that the report
builder wrote before its sections became registered modules (golden/, written by the code of commit a2dae2e).

Two fabricated stores: `paper` has something for every section (the paper's numbers under the table,
strict beside lenient, a failed job listed above the table, differences to GRPO and the budget line,
a Staleness row, the recipe audit, accuracy and entropy claims, figures); `tiny` has
one row on one seed, where the sections have nothing to compare. The figures' PNG bytes depend on the
matplotlib build, so the page's embedded images are compared by their names, not their pixels."""

import os
import re
from pathlib import Path

import pytest

import harness.reports.table1.sections.grader_audit_section as audit_section
from harness.profiles import EVAL_EXPERIMENT, PROFILES, TRAIN_EXPERIMENT
from harness.reports.table1.build import build_report
from harness.reports.table1.rows import ROWS

GOLDEN = Path(__file__).parent / "golden"
FILES = ("table1.md", "table1.csv", "table1.html", "scores.json", "terminal.txt")
AUDIT = "Grader audit: lenient 99.0% / strict 98.0% agreement (a fixed line for this test)"


def history(seed: int, shift: float, stale: bool) -> list[dict]:
    """Eight steps of the metrics the figures and the Staleness section read; held-out accuracy at step 4."""
    steps = []
    for step in range(1, 9):
        entry = {
            "step": step,
            "entropy": 0.9 - 0.05 * step + shift + 0.01 * seed,
            "ppo_kl": 0.001 * step + shift / 100,
            "grad_norm": 0.5 + 0.1 * (step % 3) + shift,
            "clip_frac_low": 0.01 + shift / 10,
            "clip_frac_high": 0.02,
        }
        if step == 4:
            entry["val_heldout_greedy_accuracy"] = 0.3 + shift
        if stale:
            lag = int(step > 1)
            entry |= {"staleness_mean": float(lag), "staleness_max": float(lag)}
            entry |= {"staleness_lag0": float(lag == 0), "staleness_lag1": float(lag == 1)}
            entry |= {"behaviour_out_low": 0.005 * lag, "behaviour_out_high": 0.01 * lag}
        steps.append(entry)
    return steps


def summary(seed: int, shift: float, stale: bool) -> dict:
    steps = history(seed, shift, stale)
    stability = {
        "end_entropy": steps[-1]["entropy"],
        "min_entropy": min(s["entropy"] for s in steps),
        "max_ppo_kl": max(s["ppo_kl"] for s in steps),
        "max_grad_norm": max(s["grad_norm"] for s in steps),
        "grad_norm_spikes": float(seed),
        "clip_frac_low": steps[0]["clip_frac_low"],
        "clip_frac_high": 0.02,
    }
    heldout = {"heldout_before": {"greedy_accuracy": 0.3}, "heldout_after": {"greedy_accuracy": 0.3 + 2 * shift}}
    return {"history": steps, "stability": stability, **heldout, "steps_completed": 8}


def samples(benchmarks: list[str], correct: int, strict: int) -> list[dict]:
    """Six problems per benchmark, two samples each: `correct` problems right leniently, fewer strictly."""
    return [
        {"benchmark": b, "id": i, "scores": {"acc": float((i + j) % 6 < correct), "acc_strict": float(i < strict)}}
        for b in benchmarks
        for i in range(6)
        for j in range(2)
    ]


def fabricate(log_run, client, tmp_path, profile: str, plan: dict, benchmarks: list[str]) -> dict:
    """Runs of every (row label, seed) in `plan` {(label, seed): (correct, shift)}; returns the expected hashes."""
    expected = {}
    for (label, seed), (correct, shift) in plan.items():
        row = next(r for r in ROWS if r.label == label)
        tags = {"table.profile": profile, "table.row": label, "table.seed": str(seed)}
        key = f"{profile}-{label}-{seed}"
        if row.loss is not None:
            files = {"summary.json": summary(seed, shift, row.staleness > 0)}
            log_run(client, TRAIN_EXPERIMENT, {**tags, "table.hash": key}, files, tmp_path)
        results = {"benchmarks": {b: {"primary_metric": "acc"} for b in benchmarks}}
        files = {"eval/results.json": results, "eval/samples.jsonl": samples(benchmarks, correct + seed, correct - 1)}
        log_run(client, EVAL_EXPERIMENT, {**tags, "table.hash": key, "table.eval_hash": key + "e"}, files, tmp_path)
        expected[label, seed] = (None if row.loss is None else key, key + "e")
    return expected


def report_files(log_run, new_store, tmp_path: Path, monkeypatch, scenario: str) -> dict[str, str]:
    """The report of one scenario: {file name: text}, the output folder written as <root>."""
    monkeypatch.setattr(audit_section, "audit_line", lambda: AUDIT)
    uri, client = new_store(tmp_path)
    if scenario == "paper":
        plan = {("base", 0): (2, 0.0), ("base", 1): (2, 0.0)}
        plan |= {(label, s): (c, d) for label, c, d in (("GRPO", 3, 0.0), ("CE-GPPO(0.5,1)", 4, 0.1)) for s in (0, 1)}
        plan |= {("DAPO", 0): (4, 0.05), ("GRPO K=1", 0): (3, 0.02), ("GRPO K=1", 1): (2, 0.03)}
        labels, seeds = ("base", "GRPO", "DAPO", "CE-GPPO(0.5,1)", "GRPO K=1"), [0, 1]
        benchmarks = ["aime24", "math500"]
        failed = {("DAPO", 1): "train failed: harness train: error: boom (log: logs/DAPO-seed1.train.log)"}
    else:
        plan, labels, seeds, benchmarks, failed = {("GRPO", 0): (3, 0.0)}, ("GRPO",), [0], ["arith"], None
    expected = fabricate(log_run, client, tmp_path, scenario, plan, benchmarks)
    expected |= {(label, s): ("none", "none") for label in labels for s in seeds if (label, s) not in expected}
    rows = [r for r in ROWS if r.label in labels]
    root = tmp_path / "out"
    root.mkdir()
    printed: list[str] = []
    build_report(PROFILES[scenario], rows, seeds, root, uri, expected, printed.append, failed)
    texts = {name: (root / name).read_text() for name in FILES[:-1]}
    texts["terminal.txt"] = "\n".join(printed) + "\n"
    texts["table1.html"] = re.sub(r"base64,[A-Za-z0-9+/=]+", "base64,<PNG>", texts["table1.html"])
    return {name: text.replace(str(root), "<root>") for name, text in texts.items()}


@pytest.mark.parametrize("scenario", ["paper", "tiny"])
def test_the_report_is_byte_identical_to_the_golden_copy(scenario, log_run, new_store, tmp_path, monkeypatch):
    texts = report_files(log_run, new_store, tmp_path, monkeypatch, scenario)
    if os.environ.get("UPDATE_GOLDEN") == "1":  # a deliberate change of the report: rewrite, then review the diff
        for name in FILES:
            (GOLDEN / scenario / name).write_text(texts[name])
    for name in FILES:
        assert texts[name] == (GOLDEN / scenario / name).read_text(), f"{scenario}/{name} differs from the golden copy"


def test_the_paper_scenario_reaches_every_section(log_run, new_store, tmp_path, monkeypatch):
    """The golden copy is worth only what it covers: every section shows in the paper scenario."""
    texts = report_files(log_run, new_store, tmp_path, monkeypatch, "paper")
    markdown = texts["table1.md"]
    for part in (AUDIT, "**Missing from this table**", "| GRPO (paper) |", "### Difference to GRPO"):
        assert part in markdown, part
    for part in ("Smallest difference", "## Staleness", "## Recipe audit", "## The paper's claims", "**holds**"):
        assert part in markdown, part
    assert "![fig2_entropy]" in markdown and "<h2>Staleness</h2>" in texts["table1.html"]
    assert all(column in texts["table1.csv"] for column in ("strict", "staleness_k", "Avg_diff_p"))
