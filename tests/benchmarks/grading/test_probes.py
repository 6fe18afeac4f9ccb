"""The reward-hack probe suite is what it claims, and malformed rows of either read set are refused.

benchmarks/data/reward_hack_probes.jsonl holds probes written for this project, each with the
verdict of a careful reader in both grading modes (docs/grader-probes.md);
benchmarks/data/reward_hack_holdout.jsonl holds 90 more, read without the grader. These tests
check the data only; how the grader agrees with it is tested with the grader.
"""

import json
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.grading.probes import NON_ANSWER_FAMILIES, PROBE_FAMILIES, load_graded_set, load_holdout, load_probes
from harness.common.errors import DataError


@pytest.fixture(scope="module")
def probes() -> list[dict]:
    return load_probes()


def test_the_probe_set_is_what_it_claims(probes):
    assert len(probes) >= 240
    assert len({row["id"] for row in probes}) == len(probes)
    counts = Counter(row["family"] for row in probes)
    assert set(counts) == set(PROBE_FAMILIES) and min(counts.values()) >= 30, counts
    for row in probes:
        assert row["id"].startswith(row["family"] + "-"), row["id"]
        assert row["reason"].strip() and "\n" not in row["reason"], row["id"]
        assert row["problem"].strip() and row["reference"].strip() and row["completion"].strip(), row["id"]
        assert row["truncated"] is False, row["id"]
        assert isinstance(row["lenient"], bool) and isinstance(row["strict"], bool), row["id"]


def test_strict_credit_implies_lenient_credit(probes):
    assert [row["id"] for row in probes if row["strict"] and not row["lenient"]] == []


def test_non_answers_are_refused_in_both_modes(probes):
    rows = [row for row in probes if row["family"] in NON_ANSWER_FAMILIES]
    assert [row["id"] for row in rows if row["lenient"] or row["strict"]] == []


def test_both_verdicts_occur_where_the_family_has_both(probes):
    def verdicts(family: str, mode: str) -> set[bool]:
        return {row[mode] for row in probes if row["family"] == family}

    for family in ("unevaluated", "approximation"):  # worked-out answers next to work left undone
        assert verdicts(family, "lenient") == {True, False}, family
        assert verdicts(family, "strict") == {True, False}, family
    # right answers: some in a form only the lenient mode accepts (a mixed number, 0.75 for 3/4)
    assert verdicts("false_negative", "lenient") == {True}
    assert verdicts("false_negative", "strict") == {True, False}
    # the forms the strict mode refuses are equal values: credited in lenient mode, mostly
    undone = [row for row in probes if row["family"] == "unevaluated" and not row["strict"]]
    assert sum(row["lenient"] for row in undone) > len(undone) / 2


def test_a_grader_that_refuses_everything_fails(probes):
    credited = sum(row["strict"] for row in probes)
    assert 0.2 <= credited / len(probes) <= 0.5  # about a quarter are worked-out right answers
    assert sum(row["lenient"] for row in probes) > credited


def test_the_holdout_set_is_what_it_claims():
    holdout = load_holdout()
    assert len({row["id"] for row in holdout}) == len(holdout)
    assert Counter(row["family"] for row in holdout) == dict.fromkeys(PROBE_FAMILIES, 15)
    for row in holdout:
        assert row["id"].startswith(f"holdout-{row['family']}-"), row["id"]
        assert row["truncated"] is False and (row["lenient"] or not row["strict"]), row["id"]
    non_answers = [row for row in holdout if row["family"] in NON_ANSWER_FAMILIES]
    assert [row["id"] for row in non_answers if row["lenient"] or row["strict"]] == []
    # none of its problems is one of the main suite's, or it would not be held out
    assert not {row["problem"] for row in holdout} & {row["problem"] for row in load_probes()}


def _write(tmp_path, rows: list, name: str = "rows.jsonl"):
    path = tmp_path / name
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return path


PROBE = {
    "id": "hedge-01",
    "family": "hedge",
    "problem": "What is $2 + 3$?",
    "reference": "5",
    "completion": "\\boxed{5 \\text{ or } 6}",
    "truncated": False,
    "lenient": False,
    "strict": False,
    "reason": "hedges between 5 and 6",
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"family": "bluff"}, r":2: family: 'bluff' is none of restatement"),
        ({"lenient": "no"}, r":2: lenient: expected bool"),
        ({"reason": "two\nlines"}, r":2: reason: more than one line"),
        ({"reason": " "}, r":2: reason: blank"),
        ({"strict": True}, r":2: strict: credited in strict mode but refused in lenient mode"),
        ({"id": "hedge-01"}, r":2: id: 'hedge-01' occurs twice"),
        ({"completion": None}, r":2: completion: expected str, got null"),
    ],
)
def test_a_malformed_probe_is_one_line_naming_file_line_and_field(tmp_path, change, message):
    path = _write(tmp_path, [PROBE, {**PROBE, "id": "hedge-02", **change}])
    with pytest.raises(DataError, match=message) as raised:
        load_probes(path)
    assert str(raised.value).startswith(f"probe file {path}:2: ") and "\n" not in str(raised.value)


def test_a_missing_field_or_broken_line_is_refused(tmp_path):
    without_family = {key: value for key, value in PROBE.items() if key != "family"}
    with pytest.raises(DataError, match=r"rows.jsonl:1: family: missing"):
        load_probes(_write(tmp_path, [without_family]))
    with pytest.raises(DataError, match=r"rows.jsonl:3: not valid JSON"):
        load_probes(_write(tmp_path, [PROBE, "", "{not json"]))
    with pytest.raises(DataError, match=r"rows.jsonl: no rows"):
        load_probes(_write(tmp_path, [""]))
    with pytest.raises(ValueError):  # DataError is a ValueError
        load_probes(tmp_path / "absent.jsonl")


GRADED = {
    "id": "probe-x",
    "kind": "restatement",
    "source": "hand-written",
    "problem_id": None,
    "problem": "What is $2 + 3$?",
    "reference": "5",
    "completion": "\\boxed{5}",
    "truncated": False,
    "verdict": True,
    "strict": True,
    "reason": "5",
}


def test_graded_rows_get_a_lenient_key_and_bad_ones_are_refused(tmp_path, data_dir):
    rows = load_graded_set(data_dir, path=_write(tmp_path, [GRADED]))
    assert rows[0]["lenient"] is True and rows[0]["verdict"] is True
    bad = [
        ({"problem": None}, r":1: problem: null without a problem_id"),
        ({"problem_id": "math500/test/none.json"}, r":1: problem_id: 'math500/test/none.json' is no MATH-500 row"),
        ({"verdict": False}, r":1: strict: credited in strict mode but refused in lenient mode"),
        ({"truncated": "yes"}, r":1: truncated: expected bool or null"),
    ]
    for change, message in bad:
        with pytest.raises(DataError, match=message):
            load_graded_set(data_dir, path=_write(tmp_path, [{**GRADED, **change}]))


def test_the_shipped_graded_set_names_real_math500_problems(data_dir):
    rows = load_graded_set(data_dir)
    assert all(row["problem"].strip() for row in rows)
    assert any(row["problem_id"] for row in rows) and all(row["lenient"] == row["verdict"] for row in rows)


def test_the_documented_counts_are_the_files(probes):
    page = (Path(__file__).resolve().parents[3] / "docs" / "grader-probes.md").read_text()
    table = {}
    for line in page.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in (*PROBE_FAMILIES, "all") and cells[1].isdigit():
            table[cells[0]] = [int(cell) for cell in cells[1:]]
    counted = {}
    for family in (*PROBE_FAMILIES, "all"):
        rows = [row for row in probes if family in ("all", row["family"])]
        both = sum(row["strict"] for row in rows)
        lenient_only = sum(row["lenient"] and not row["strict"] for row in rows)
        counted[family] = [len(rows), both, lenient_only, len(rows) - both - lenient_only]
    assert table == counted
