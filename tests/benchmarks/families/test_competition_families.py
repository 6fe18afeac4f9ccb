"""The 2025-2026 competitions, BeyondAIME, OlympiadBench's numeric subset and Minerva Math: registry entries,
offline loading from files in the documented format (the synthetic fixtures), the row adapters, and the
grader's answer equivalence maj@k uses. Nothing here reaches the Hub."""

from pathlib import Path

import pytest

from benchmarks import BENCHMARKS, get_benchmark, resolve_suite
from benchmarks.families.math_competitions import same_math_answer
from benchmarks.families.minerva_math import minerva_row
from benchmarks.families.olympiadbench import olympiad_numeric_rows
from harness.common.errors import DataError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# name -> (local file, documented rows, Hub id): the tables of the family modules and docs/benchmarks.md
DOCUMENTED = {
    "aime26": ("aime26.jsonl", 30, "MathArena/aime_2026"),
    "hmmt_feb26": ("hmmt_feb26.jsonl", 33, "MathArena/hmmt_feb_2026"),
    "hmmt_nov25": ("hmmt_nov25.jsonl", 30, "MathArena/hmmt_nov_2025"),
    "brumo25": ("brumo25.jsonl", 30, "MathArena/brumo_2025"),
    "cmimc25": ("cmimc25.jsonl", 40, "MathArena/cmimc_2025"),
    "beyondaime": ("beyondaime.jsonl", 100, "ByteDance-Seed/BeyondAIME"),
    "olympiadbench_num": ("olympiadbench_en_numeric.jsonl", 502, "Hothan/OlympiadBench"),
    "minerva_math": ("minerva_math.jsonl", 272, "math-ai/minervamath"),
}


def test_the_fresh_suite_holds_the_2025_2026_competitions():
    assert [b.name for b in resolve_suite("fresh")] == ["aime26", "hmmt_feb26", "hmmt_nov25", "brumo25", "cmimc25"]
    # users provide these files (shared/benchmarks has none): "all" must keep working offline without them
    assert not set(DOCUMENTED) & {b.name for b in resolve_suite("all")}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_entry_loads_its_fixture_and_credits_its_references(name):
    benchmark = get_benchmark(name)
    file_name, rows, hub_id = DOCUMENTED[name]
    assert (benchmark.file_name, benchmark.expected_rows, benchmark.source) == (file_name, rows, hub_id)
    assert [m.name for m in benchmark.metrics] == ["acc", "acc_strict"] and benchmark.same_answer is not None
    loaded = benchmark.load(FIXTURES)
    assert len(loaded) == 3 and all(row["id"].startswith("synthetic-") for row in loaded)
    for row in loaded:
        assert benchmark.prompt(row).endswith("put your final answer within \\boxed{}.")
        scores, extracted = benchmark.judge(row, f"So the answer is \\boxed{{{row['answer']}}}.")
        assert scores == {"acc": 1.0, "acc_strict": 1.0} and extracted == row["answer"]
        assert benchmark.score(row, "\\boxed{-999}")["acc"] == 0.0


def test_pinned_versions_name_their_commit_and_unpinned_ones_say_so():
    assert get_benchmark("olympiadbench_num").version.endswith("@a45202bd16f1ec06f433442dc1152d0074773465")
    assert get_benchmark("minerva_math").version.endswith("@a45202bd16f1ec06f433442dc1152d0074773465")
    for name in ("aime26", "hmmt_feb26", "hmmt_nov25", "brumo25", "cmimc25", "beyondaime"):
        assert "unpinned" in get_benchmark(name).version


def test_offline_without_a_file_names_the_hub_dataset_and_never_downloads(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match=r"no local file .*aime26.jsonl.*'MathArena/aime_2026'.*HF_HUB_OFFLINE"):
        get_benchmark("aime26").load(tmp_path)


def test_a_row_without_an_answer_is_refused_with_its_line(tmp_path):
    (tmp_path / "hmmt_nov25.jsonl").write_text('{"id": "1", "problem": "Compute 2+2.", "answer": ""}\n')
    with pytest.raises(DataError, match=r"hmmt_nov25.jsonl:1: blank value in field\(s\) answer"):
        get_benchmark("hmmt_nov25").load(tmp_path)


def _olympiad(row_id, answer_type, answers, multiple=False, unit=None, context=None):
    """A row in OlympiadBench's own schema (Qwen2.5-Math's copy and the Hub's share it)."""
    return {
        "id": row_id,
        "question": f"Synthetic question {row_id}.",
        "context": context,
        "final_answer": answers,
        "answer_type": answer_type,
        "is_multiple_answer": multiple,
        "unit": unit,
    }


def test_olympiadbench_keeps_single_numbers_without_unit():
    raw = [
        _olympiad(1, "Numerical", ["$2^{1009}$"]),
        _olympiad(2, "Expression", ["$2n-2$"]),
        _olympiad(3, "Numerical", ["$3$", "$5$"], multiple=True),
        _olympiad(4, "Numerical", ["40"], unit="km/h"),
        _olympiad(5, "Tuple", ["$(1,8,19)$"]),
        _olympiad(6, "Numerical", ["$\\frac{25}{2}$"], context="A shared set-up."),
        _olympiad(7, "Interval", ["$[0,1]$"]),
    ]
    assert olympiad_numeric_rows(raw) == [
        {"id": "1", "problem": "Synthetic question 1.", "answer": "2^{1009}"},
        {"id": "6", "problem": "A shared set-up.\n\nSynthetic question 6.", "answer": "\\frac{25}{2}"},
    ]


def test_minerva_rows_take_the_last_box_of_the_solution():
    raw = {"problem": "P", "solution": "first \\boxed{1} then \\[ s = \\boxed{1.6} \\mathrm{~cm} \\]", "idx": 7}
    assert minerva_row(raw) == {"id": "7", "problem": "P", "answer": "1.6"}
    assert minerva_row({"problem": "P", "solution": "no box", "idx": 8})["answer"] is None


@pytest.mark.parametrize(
    ("first", "other", "same"),
    [
        ("12", "012", True),
        ("\\frac{1}{2}", "0.5", True),
        ("2\\sqrt{2}", "\\sqrt{8}", True),
        ("3", "4", False),
        ("\\frac{3}{4}", "\\frac{4}{3}", False),
    ],
)
def test_same_math_answer_is_the_graders_equivalence(first, other, same):
    assert same_math_answer(first, other) is same


def test_every_math_benchmark_compares_answers_and_code_does_not():
    assert get_benchmark("aime24").same_answer is same_math_answer
    assert get_benchmark("arith_l1").same_answer is same_math_answer
    assert BENCHMARKS["humaneval"].same_answer is None and BENCHMARKS["ifeval"].same_answer is None
