"""The Staleness section of the Table 1 report on fabricated histories and scores, its numbers worked
out by hand; and through build_report on a fabricated MLflow store (markdown, CSV, HTML)."""

import csv

import pytest

from harness.profiles import EVAL_EXPERIMENT, PROFILES, TRAIN_EXPERIMENT
from harness.reports.render.table import SeedResult, build_table
from harness.reports.table1.build import build_report
from harness.reports.table1.rows import ROWS
from harness.reports.table1.sections.staleness_section import (
    staleness_csv,
    staleness_html,
    staleness_lines,
    staleness_markdown,
)


def rows(*labels):
    return [next(r for r in ROWS if r.label == label) for label in labels]


def step(entropy, clip_low=None, clip_high=None, lag=None, k=0, out=None):
    """One step's history entry; `lag`: every row of the step that many updates old (K = k)."""
    entry = {"entropy": entropy}
    if clip_low is not None:
        entry["clip_frac_low"] = clip_low
    if clip_high is not None:
        entry["clip_frac_high"] = clip_high
    if lag is not None:
        entry |= {"staleness_mean": float(lag), "staleness_max": float(lag)}
        entry |= {f"staleness_lag{j}": float(j == lag) for j in range(k + 1)}
    if out is not None:
        entry["behaviour_out_low"], entry["behaviour_out_high"] = out
    return entry


def run(*steps):
    """A run's history: the steps numbered from 1."""
    return [{"step": number, **entry} for number, entry in enumerate(steps, 1)]


HISTORIES = {
    # K=0: no staleness or behaviour metric is logged. clip lo: seeds (1+3)/2 = 2 and 2 -> 2.00 %;
    # clip hi: (2+2)/2 and (4+0)/2 -> 2.00 %; end H: the last step (2 steps: a 1-step tail), (0.4+0.3)/2
    "GRPO": {
        0: run(step(0.6, 0.01, 0.02), step(0.4, 0.03, 0.02)),
        1: run(step(0.5, 0.02, 0.04), step(0.3, 0.02, 0.00)),
    },
    # K=1: lag 0 at the first step (nothing older yet), 1 after: staleness 0.5, max 1, lags 50 / 50;
    # out lo (0+1)/2 and (0+3)/2 -> 0.5 and 1.5 -> 1.00 %; out hi 1.5 and 0.5 -> 1.00 %;
    # clip lo 3 and 2 -> 2.50 %; clip hi 5 and 3 -> 4.00 %; end H (0.5+0.3)/2
    "GRPO K=1": {
        0: run(step(0.7, 0.02, 0.04, 0, 1, (0.0, 0.0)), step(0.5, 0.04, 0.06, 1, 1, (0.01, 0.03))),
        1: run(step(0.6, 0.02, 0.04, 0, 1, (0.0, 0.0)), step(0.3, 0.02, 0.02, 1, 1, (0.03, 0.01))),
    },
    # K=4, one seed trained, no behaviour metric and no clip_frac_high: those show "–"
    "GRPO K=4": {0: run(step(0.2, 0.1, None, 0, 4), step(0.2, 0.3, None, 1, 4))},
    "CE-GPPO(0.5,1)": {0: run(step(0.5))},  # CE-GPPO(0.5,1) K=1 never ran
}


def scores(*values):
    return {"arith": {str(i): v for i, v in enumerate(values)}}


RESULTS = {
    # Avg per seed 0.3125, 0.375: mean 34.375 %, sd 0.0625 / sqrt 2 = 4.42 points
    "GRPO": {0: SeedResult(scores(0, 0.25, 0.5, 0.5)), 1: SeedResult(scores(0.25, 0.25, 0.5, 0.5))},
    # every problem of both seeds exactly 0.25 above GRPO's: +25.0 with no spread, the interval [+25.0, +25.0]
    "GRPO K=1": {0: SeedResult(scores(0.25, 0.5, 0.75, 0.75)), 1: SeedResult(scores(0.5, 0.5, 0.75, 0.75))},
    # seed 0 only: D = (0, 0, 0, 0.5), mean 0.125, sd of D 0.25, se 0.25 / 2 = 0.125 on 3 df,
    # t(0.975, 3) = 3.1824 -> 0.125 -+ 0.3978: [-27.3, +52.3]; accuracy 43.75 % (sd 0 with one seed)
    "GRPO K=4": {0: SeedResult(scores(0, 0.25, 0.5, 1.0))},
}


def lines_of(labels):
    table = build_table(RESULTS, ["arith"])
    return staleness_lines(rows(*labels), HISTORIES, RESULTS, table, ["arith"])


LABELS = ("GRPO", "CE-GPPO(0.5,1)", "GRPO K=1", "GRPO K=4", "CE-GPPO(0.5,1) K=1")  # select_rows' order


def test_the_section_shows_each_k0_row_above_its_k_rows_with_hand_worked_figures():
    lines = lines_of(LABELS)
    assert [(line.label, line.k, line.seeds) for line in lines] == [
        ("GRPO", 0, 2),
        ("GRPO K=1", 1, 2),
        ("GRPO K=4", 4, 1),
        ("CE-GPPO(0.5,1)", 0, 1),
        ("CE-GPPO(0.5,1) K=1", 1, 0),
    ]
    grpo, k1, k4 = lines[:3]
    assert grpo.values == pytest.approx({"clip_frac_low": 0.02, "clip_frac_high": 0.02, "end_entropy": 0.35})
    assert grpo.lags == () and grpo.versus is None and grpo.accuracy == pytest.approx((0.34375, 0.0625 / 2**0.5))
    assert k1.values == pytest.approx(
        {
            "staleness_mean": 0.5,
            "staleness_max": 1.0,
            "clip_frac_low": 0.025,
            "clip_frac_high": 0.04,
            "behaviour_out_low": 0.01,
            "behaviour_out_high": 0.01,
            "end_entropy": 0.4,
        }
    )
    assert k1.lags == pytest.approx((0.5, 0.5)) and k4.lags == pytest.approx((0.5, 0.5, 0, 0, 0))
    assert (k1.versus.mean, k1.versus.low, k1.versus.high, k1.versus.paired) == (pytest.approx(25.0), 25.0, 25.0, True)
    assert (k4.versus.mean, k4.versus.low, k4.versus.high) == pytest.approx((12.5, -27.28, 52.28), abs=0.01)

    markdown = staleness_markdown(lines)
    assert markdown.startswith("## Staleness\n\nStaleness K:")
    table = markdown.split("\n\n")[2].splitlines()
    assert table[0] == (
        "| row | K | seeds | staleness (max) | lag % | clip lo % | clip hi % | out lo % | out hi % | end H | "
        "accuracy % | vs K=0, points |"
    )
    assert table[2:] == [
        "| GRPO | 0 | 2 | – | – | 2.00 | 2.00 | – | – | 0.3500 | 34.4 (sd 4.4) | – |",
        "| GRPO K=1 | 1 | 2 | 0.50 (1) | 50 / 50 | 2.50 | 4.00 | 1.00 | 1.00 | 0.4000 | 59.4 (sd 4.4) | "
        "+25.0 [+25.0, +25.0] |",
        "| GRPO K=4 | 4 | 1 | 0.50 (1) | 50 / 50 / 0 / 0 / 0 | 20.00 | – | – | – | 0.2000 | 43.8 (sd n/a (1 seed)) | "
        "+12.5 [-27.3, +52.3] |",
        "| CE-GPPO(0.5,1) | 0 | 1 | – | – | – | – | – | – | 0.5000 | – | – |",
        "| CE-GPPO(0.5,1) K=1 | 1 | 0 | – | – | – | – | – | – | – | – | – |",
    ]
    page = staleness_html(lines)
    assert page.startswith("<h2>Staleness</h2>") and '<td class="above">+25.0 [+25.0, +25.0]</td>' in page
    assert "<td>+12.5 [-27.3, +52.3]</td>" in page  # covers 0: not coloured
    columns = staleness_csv(lines)
    assert list(columns)[:9] == ["staleness_k", "staleness_mean", "staleness_max"] + [
        f"staleness_lag{k}" for k in range(5)
    ] + ["behaviour_out_low"]
    assert columns["staleness_k"] == {line.label: str(line.k) for line in lines}
    assert columns["staleness_mean"] == {"GRPO K=1": "0.5", "GRPO K=4": "0.5"}  # none for the K=0 rows
    assert columns["staleness_lag4"] == {"GRPO K=4": "0"} and columns["behaviour_out_high"] == {"GRPO K=1": "0.01"}
    assert columns["Avg_diff_k0_pts"] == {"GRPO K=1": "25", "GRPO K=4": "12.5"}


def test_no_section_without_a_staleness_row():
    assert lines_of(("GRPO", "CE-GPPO(0.5,1)")) == [] and staleness_csv([]) == {}


def test_the_report_carries_the_section_in_markdown_csv_and_html(tmp_path, log_run, new_store):
    uri, client = new_store(tmp_path)
    chosen, expected = rows("GRPO", "GRPO K=1"), {}
    for row in chosen:
        for seed in (0, 1):
            tags = {"table.profile": "tiny", "table.row": row.label, "table.seed": str(seed)}
            key = f"{row.label}-{seed}"
            history = HISTORIES[row.label][seed]
            summary = {"history": history, "stability": {"end_entropy": history[-1]["entropy"]}}
            log_run(client, TRAIN_EXPERIMENT, {**tags, "table.hash": key}, {"summary.json": summary}, tmp_path)
            problems = RESULTS[row.label][seed].scores["arith"]
            samples = [  # 4 samples per problem, `score` of them right
                {"benchmark": "arith", "id": int(i), "scores": {"acc": float(j < 4 * score)}}
                for i, score in problems.items()
                for j in range(4)
            ]
            files = {"eval/results.json": {"benchmarks": {"arith": {"primary_metric": "acc"}}}}
            files["eval/samples.jsonl"] = samples
            log_run(client, EVAL_EXPERIMENT, {**tags, "table.hash": key, "table.eval_hash": key + "e"}, files, tmp_path)
            expected[row.label, seed] = (key, key + "e")
    out = tmp_path / "out"
    out.mkdir()
    printed = []
    report = build_report(PROFILES["tiny"], chosen, [0, 1], out, uri, expected, printed.append)
    assert [line.label for line in report["staleness"]] == ["GRPO", "GRPO K=1"]
    markdown = (out / "table1.md").read_text()
    assert markdown.index("### Difference to GRPO") < markdown.index("## Staleness") < markdown.index("## The paper's")
    assert (
        "| GRPO K=1 | 1 | 2 | 0.50 (1) | 50 / 50 | 2.50 | 4.00 | 1.00 | 1.00 | 0.4000 | 59.4 (sd 4.4) | "
        "+25.0 [+25.0, +25.0] |" in markdown
    )
    assert "| GRPO | 0 | 2 | – | – | 2.00 | 2.00 | – | – | 0.3500 | 34.4 (sd 4.4) | – |" in markdown
    assert any("Staleness K:" in line for line in printed)
    names, *values = csv.reader((out / "table1.csv").read_text().splitlines())
    by_row = {line[0]: dict(zip(names, line)) for line in values}
    assert names.index("Avg_diff_p") < names.index("staleness_k") and names[-1] == "Avg_diff_k0_p"
    assert by_row["GRPO"]["staleness_k"] == "0" and by_row["GRPO"]["staleness_mean"] == ""
    assert by_row["GRPO K=1"]["staleness_lag1"] == "0.5" and by_row["GRPO K=1"]["Avg_diff_k0_pts"] == "25"
    page = (out / "table1.html").read_text()
    assert page.index("<h3>Difference to GRPO") < page.index("<h2>Staleness</h2>")
    assert '<td class="above">+25.0 [+25.0, +25.0]</td>' in page.split("<h2>Staleness</h2>")[1]


def test_staleness_figure_is_drawn_only_with_stale_rows(tmp_path):
    from harness.reports.render.training_figures import staleness_figure

    def history(offset):
        return [
            {"step": s, "entropy": 1.0 - 0.01 * s + offset, "clip_frac_low": 0.01, "clip_frac_high": 0.002}
            | ({"behaviour_out_low": 0.03 * offset} if offset else {})
            for s in range(20)
        ]

    fresh = {"GRPO": {0: history(0.0)}, "CE-GPPO(0.5,1)": {0: history(0.0)}}
    assert staleness_figure(fresh, tmp_path / "none.png") is None  # nothing stale: nothing to compare
    stale = {**fresh, "GRPO K=1": {0: history(0.1)}, "CE-GPPO(0.5,1) K=4": {0: history(0.4), 1: history(0.5)}}
    path = staleness_figure(stale, tmp_path / "staleness.png")
    assert path is not None and path.stat().st_size > 10_000
