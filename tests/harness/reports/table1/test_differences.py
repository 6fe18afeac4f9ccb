"""Table 1's differences to a baseline row and its accuracy claims, on fabricated per-problem scores whose
answer is known: cells, the unpaired mark, the CSV columns, the detectable difference, Holm's verdicts."""

import math

import numpy as np
import pytest

from harness.reports.render.table import SeedResult
from harness.reports.stats.accuracy import holm
from harness.reports.table1.claims import accuracy_claims, accuracy_note, check_accuracy_claims
from harness.reports.table1.differences import (
    compare,
    csv_columns,
    detectable,
    detectable_line,
    differences_markdown,
    nothing_to_compare,
    row_scores,
)

CHANCE = np.random.default_rng(0).uniform(0.2, 0.8, 60)  # per-problem accuracy of the baseline


def row(shift, seeds=(0, 1, 2), benchmarks=("aime", "amc"), seed=1):
    """A row whose every problem is `shift` above the baseline's chance, 4 samples each, seed shifts of 1 point."""
    rng = np.random.default_rng(seed)
    results = {}
    for s in seeds:
        chance = np.clip(CHANCE + shift + rng.normal(0, 0.01), 0, 1)
        scores = {b: {str(i): rng.binomial(4, chance[i]) / 4 for i in range(len(CHANCE))} for b in benchmarks}
        results[s] = SeedResult(scores)
    return results


def test_every_row_against_the_baseline_per_benchmark_and_avg():
    results = {"base": row(-0.3, seed=2), "GRPO": row(0.0, seed=3), "CE-GPPO(0.5,1)": row(0.25, seed=4)}
    comparisons = compare(results, ["aime", "amc"], "GRPO")
    assert [c.label for c in comparisons] == ["base", "CE-GPPO(0.5,1)"]
    base, ce = comparisons
    assert base.cells["Avg"].high < 0 < ce.cells["Avg"].low  # 30 points below, 25 above: no doubt either way
    assert ce.cells["Avg"].mean == pytest.approx((ce.cells["aime"].mean + ce.cells["amc"].mean) / 2)
    assert 20 < ce.cells["Avg"].mean < 30 and ce.cells["Avg"].paired and ce.cells["Avg"].seeds == 3
    markdown = differences_markdown(comparisons, ["aime", "amc"], "GRPO")
    lines = markdown.splitlines()
    assert lines[0] == "### Difference to GRPO, points, 95% interval"
    assert lines[2] == "| algorithm | compared | aime | amc | Avg |"
    assert lines[5].startswith(f"| CE-GPPO(0.5,1) | paired, 3 seeds | {ce.cells['aime'].text()} |")
    assert lines[-1].startswith("Intervals: paired: crossed random-effects interval")
    columns = csv_columns(comparisons, ["aime", "amc"], "GRPO")
    assert list(columns)[:2] == ["diff_baseline", "diff_paired"] and "GRPO" not in columns["diff_baseline"]
    assert float(columns["Avg_diff_pts"]["CE-GPPO(0.5,1)"]) == pytest.approx(ce.cells["Avg"].mean, abs=1e-4)
    assert float(columns["amc_diff_low_pts"]["base"]) == pytest.approx(base.cells["amc"].low, abs=1e-4)


def test_one_benchmark_makes_avg_that_benchmark_and_other_seeds_are_unpaired():
    results = {"GRPO": row(0.0, benchmarks=("arith",)), "DAPO": row(0.05, seeds=(5, 6), benchmarks=("arith",))}
    (dapo,) = compare(results, ["arith"], "GRPO")
    assert dapo.cells["Avg"] is dapo.cells["arith"] and not dapo.cells["Avg"].paired
    markdown = differences_markdown([dapo], ["arith"], "GRPO")
    assert "| DAPO | unpaired, 2 seeds |" in markdown and "unpaired (not the baseline's seeds or problems" in markdown


def test_without_a_baseline_or_other_rows_the_table_says_why():
    assert compare({"DAPO": row(0.0)}, ["aime"], "GRPO") == []
    assert (
        nothing_to_compare({"DAPO": row(0.0)}, "GRPO") == "No differences: the baseline row GRPO has no finished run."
    )
    assert "no row but the baseline" in nothing_to_compare({"GRPO": row(0.0)}, "GRPO")
    assert differences_markdown([], ["aime"], "GRPO", "why").endswith("\n\nwhy")


def test_the_detectable_difference_comes_from_the_trained_rows():
    trained = {label: row_scores(row(shift, seed=s), ["aime"]) for label, shift, s in (("A", 0, 5), ("B", 0.02, 6))}
    found = detectable(trained, ["aime"], seeds=3, samples=4)
    points, components = found["aime"]
    assert components.problems == 60 and components.seeds == 3 and 3 < points < 40
    line = detectable_line(found, 3, 4)
    assert line.startswith("Smallest difference this budget detects (80% power, 5% level; 3 seeds x 4 samples")
    assert f"aime {points:.1f} points (60 problems)" in line
    lonely = detectable({"A": trained["A"]}, ["aime"], 3, 4)
    assert math.isnan(lonely["aime"][0]) and "not measurable" in detectable_line(lonely, 3, 4)


def test_accuracy_claims_per_rows_and_benchmarks():
    one = [c.text for c in accuracy_claims({"GRPO", "CE-GPPO(0.5,1)"}, ["arith"])]
    assert one == ["CE-GPPO(0.5,1) beats GRPO on Avg", "CE-GPPO(0.5,1) beats DAPO on Avg"]
    many = [c.text for c in accuracy_claims({"CE-GPPO(0.75,1)"}, ["aime", "amc"])]
    assert many[2:4] == ["CE-GPPO(0.5,1) beats GRPO on aime", "CE-GPPO(0.5,1) beats GRPO on amc"]
    assert many[4:] == [
        "CE-GPPO(0.75,1) beats GRPO on Avg",
        "CE-GPPO(0.75,1) beats DAPO on Avg",
        "CE-GPPO(0.75,1) beats GRPO on aime",
        "CE-GPPO(0.75,1) beats GRPO on amc",
    ]


def test_verdicts_read_holm_adjusted_p_values():
    bench = ["aime", "amc"]
    scores = {
        "GRPO": row_scores(row(0.0, seed=7), bench),
        "DAPO": row_scores(row(0.3, seed=8), bench),  # far above CE-GPPO: "does not hold"
        "CE-GPPO(0.5,1)": row_scores(row(0.15, seed=9), bench),  # far above GRPO: "holds"
    }
    verdicts = check_accuracy_claims(scores, bench)
    by_text = {v.claim.text: v for v in verdicts}
    assert by_text["CE-GPPO(0.5,1) beats GRPO on Avg"].verdict == "holds"
    assert by_text["CE-GPPO(0.5,1) beats DAPO on Avg"].verdict == "does not hold"
    raw = [v.difference.p_value for v in verdicts]
    assert [v.adjusted_p for v in verdicts] == pytest.approx(holm(raw)) and {v.family for v in verdicts} == {4}
    line = by_text["CE-GPPO(0.5,1) beats GRPO on aime"].line()
    assert "Holm-Bonferroni-adjusted over 4 accuracy claims" in line and "paired, 3 seeds x 60 problems" in line
    assert "Holm-Bonferroni-adjusted p-values across the 4 accuracy claims" in accuracy_note(verdicts)


def test_a_difference_inside_noise_and_a_claim_whose_row_did_not_run():
    scores = {
        "GRPO": row_scores(row(0.0, seed=10), ["aime"]),
        "CE-GPPO(0.5,1)": row_scores(row(0.0, seed=11), ["aime"]),
    }
    noise, missing = check_accuracy_claims(scores, ["aime"])
    assert noise.verdict == "inside noise" and noise.family == 1 and noise.adjusted_p == noise.difference.p_value
    assert missing.verdict == "not run" and "needs rows CE-GPPO(0.5,1) and DAPO" in missing.line()
    assert accuracy_note([missing]) == "Accuracy claims: none ran (their rows are missing)."


def test_one_seed_gives_no_accuracy_verdict_however_small_its_problem_interval():
    # one seed per row: a row 15 points above on every problem is still seed luck as far as one seed can
    # tell (the countdown testbed's seed 0 put CE-GPPO(0.5,1) 3.6 points over GRPO; six seeds: -1.2)
    scores = {
        "GRPO": row_scores(row(0.0, seeds=(0,), seed=7), ["aime"]),
        "CE-GPPO(0.5,1)": row_scores(row(0.15, seeds=(0,), seed=9), ["aime"]),
    }
    verdict = check_accuracy_claims(scores, ["aime"])[0]
    assert verdict.difference.seeds == 1 and verdict.difference.low > 0  # the problems-only interval excludes 0
    assert verdict.verdict == "inside noise" and verdict.adjusted_p < 0.05
    assert "1 seed: no verdict, the seed's own luck is not measured" in verdict.line()
