"""harness.reports.render.table: exact numbers in, exact cells out (means, standard errors, seed spread)."""

import math

import pytest

from harness.reports.render.table import SeedResult, benchmark_cell, build_table, to_csv, to_markdown


def test_a_cell_pools_problems_over_seeds_and_spreads_over_seeds():
    # two seeds, three problems, per-problem means of k samples
    seed0 = {"p1": 1.0, "p2": 0.5, "p3": 0.0}  # avg 0.5
    seed1 = {"p1": 1.0, "p2": 1.0, "p3": 0.25}  # avg 0.75
    cell = benchmark_cell([seed0, seed1])
    assert cell.mean == pytest.approx(0.625)
    pooled = [1.0, 0.75, 0.125]  # per problem over both seeds
    mean = sum(pooled) / 3
    sd_pooled = math.sqrt(sum((x - mean) ** 2 for x in pooled) / 2)
    assert cell.se == pytest.approx(sd_pooled / math.sqrt(3))
    assert cell.sd == pytest.approx(math.sqrt(((0.5 - 0.625) ** 2 + (0.75 - 0.625) ** 2) / 1))
    assert cell.seeds == 2
    assert cell.text() == "62.5 ± 26.0 (sd 17.7)"


def results():
    def seed(a, b, entropy):
        return SeedResult(
            {"aime": {"x": a, "y": a}, "amc": {"x": b, "y": 1 - b}}, {"end_entropy": entropy, "clip_frac_low": 0.01}
        )

    return {
        "base": {0: SeedResult({"aime": {"x": 0.0, "y": 0.0}, "amc": {"x": 0.5, "y": 0.5}})},
        "GRPO": {0: seed(0.5, 1.0, 0.40), 1: seed(0.25, 1.0, 0.30)},
    }


def test_rows_average_benchmarks_per_seed_and_figures_over_seeds():
    rows = build_table(results(), ["aime", "amc"])
    base, grpo = rows
    assert base.cells["Avg"].mean == pytest.approx(0.25) and base.stability == {} and base.seeds == 1
    # GRPO seed 0: aime 0.5, amc 0.5 -> 0.5; seed 1: aime 0.25, amc 0.5 -> 0.375
    assert grpo.cells["Avg"].mean == pytest.approx(0.4375)
    assert grpo.cells["Avg"].sd == pytest.approx(math.sqrt(2 * 0.0625**2))
    assert grpo.cells["aime"].mean == pytest.approx(0.375)
    assert grpo.stability == {"end_entropy": pytest.approx(0.35), "clip_frac_low": pytest.approx(0.01)}


def test_markdown_and_csv_show_the_same_numbers():
    rows = build_table(results(), ["aime", "amc"])
    markdown = to_markdown(rows, ["aime", "amc"], paper={"GRPO": (33.4, 79.3, 49.1)})
    lines = markdown.splitlines()
    assert lines[0].startswith("| algorithm | seeds | aime | amc | Avg | end H |")
    assert (
        lines[2] == "| base | 1 | 0.0 ± 0.0 (sd n/a (1 seed)) | 50.0 ± 0.0 (sd n/a (1 seed)) | 25.0 (sd n/a (1 seed)) "
        "| – | – | – | – | – | – | – |"
    )  # one seed measures no spread: no "sd 0.0"
    assert (
        "| GRPO | 2 | 37.5 ± 0.0 (sd 17.7) | 50.0 ± 50.0 (sd 0.0) | 43.8 (sd 8.8) |" in lines[3]
        and "| 0.3500 |" in lines[3]
        and "| 1.00 |" in lines[3]
    )
    assert lines[4].startswith("| GRPO (paper) |  | 33.4 | 79.3 | 49.1 |")
    csv_lines = to_csv(rows, ["aime", "amc"]).splitlines()
    assert csv_lines[0].startswith("algorithm,seeds,aime_mean,aime_se,aime_sd,amc_mean")
    assert csv_lines[2].startswith("GRPO,2,0.375,0,0.176777,0.5,0.5,0,0.4375,,0.0883883,0.35,")
    assert csv_lines[1].startswith("base,1,0,0,,0.5,0,,0.25,,,")  # one seed: the sd field is empty


def test_strict_scores_stand_beside_the_lenient_headline():
    def seed(lenient, strict):
        return SeedResult(
            {"math": {"x": lenient, "y": lenient}, "arith": {"x": 1.0}}, {}, {"math": {"x": strict, "y": strict}}
        )

    (row,) = build_table({"GRPO": {0: seed(0.5, 0.25), 1: seed(0.75, 0.5)}}, ["math", "arith"])
    assert row.cells["math"].mean == pytest.approx(0.625) and row.cells["math"].strict == pytest.approx(0.375)
    assert row.cells["math"].text().endswith("(sd 17.7), strict 37.5")
    assert row.cells["arith"].strict is None and row.cells["Avg"].strict is None  # arith graded in one mode only
    header, line = to_csv([row], ["math", "arith"]).splitlines()
    assert header.split(",")[-3:] == ["math_strict_mean", "arith_strict_mean", "Avg_strict_mean"]
    assert line.split(",")[-3:] == ["0.375", "", ""]
    (both,) = build_table({"GRPO": {0: SeedResult({"math": {"x": 1.0}}, {}, {"math": {"x": 0.0}})}}, ["math"])
    assert both.cells["Avg"].strict == 0.0 and "| 100.0 (sd n/a (1 seed)), strict 0.0 |" in to_markdown(
        [both], ["math"]
    )
