"""Table 1's maj@k / pass^k section: read from results.json, averaged over seeds and benchmarks by hand; absent
where no evaluation has them."""

from harness.profiles import PROFILES
from harness.reports.render.table import SeedResult
from harness.reports.table1.build import vote_metrics
from harness.reports.table1.rows import ROWS
from harness.reports.table1.sections import ReportInputs
from harness.reports.table1.sections.votes_section import applies, build, csv, markdown_table


def results_json(maj_a, hat_a, maj_b):
    return {
        "benchmarks": {
            "aime24": {"primary_metric": "acc", "metrics": {"acc": {"avg@4": 0.3, "maj@4": maj_a, "pass^4": hat_a}}},
            "math500": {"primary_metric": "acc", "metrics": {"acc": {"avg@4": 0.6, "maj@4": maj_b, "pass^4": 0.4}}},
        }
    }


def inputs(results):
    return ReportInputs(
        PROFILES["tiny"],
        [r for r in ROWS if r.label == "GRPO"],
        [0, 1],
        "GRPO",
        results,
        {},
        {},
        ["aime24", "math500"],
        [],
        {},
        None,
    )


def test_vote_metrics_are_read_from_results_json():
    assert vote_metrics(results_json(0.5, 0.1, 0.7)) == {
        "aime24": {"maj@4": 0.5, "pass^4": 0.1},
        "math500": {"maj@4": 0.7, "pass^4": 0.4},
    }
    assert vote_metrics({"benchmarks": {"aime24": {"primary_metric": "acc"}}}) == {}  # fixtures, k = 1


def test_means_over_seeds_then_benchmarks():
    seeds = {
        0: SeedResult({}, sample_metrics=vote_metrics(results_json(0.5, 0.1, 0.7))),
        1: SeedResult({}, sample_metrics=vote_metrics(results_json(0.3, 0.3, 0.9))),
    }
    found = build(inputs({"GRPO": seeds}))
    assert found.metrics == ["maj@4", "pass^4"]
    grpo = found.rows["GRPO"]
    assert grpo["aime24"]["maj@4"] == 0.4 and grpo["math500"]["maj@4"] == 0.8  # mean over the seeds
    assert abs(grpo["Avg"]["maj@4"] - 0.6) < 1e-12 and abs(grpo["Avg"]["pass^4"] - 0.3) < 1e-12
    assert "| GRPO | 60.0 | 30.0 |" in markdown_table(found)
    assert csv(found)["aime24_pass^4"] == {"GRPO": "20.0"}


def test_absent_without_vote_metrics():
    assert not applies(inputs({"GRPO": {0: SeedResult({})}}))
