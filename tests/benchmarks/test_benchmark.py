"""Benchmark.load on bad local files and Hub rows: one-line DataError naming file and line, no silent fallback."""

import dataclasses
import json
import os
import re

import pytest

from benchmarks import get_benchmark
from benchmarks.benchmark import MAX_PROMPT_CHARS
from benchmarks.families.math_competitions import math_row_from_hub
from harness.common.errors import DataError

GOOD = '{"id": "a", "problem": "1+1", "answer": "2"}\n'


def _write(tmp_path, content: bytes, name: str = "aime24.jsonl"):
    (tmp_path / name).write_bytes(content)
    return tmp_path


def _online(monkeypatch, benchmark, rows):
    """`benchmark` with a fake Hub loader returning `rows`, and the Hub allowed; records calls."""
    calls = []
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    return dataclasses.replace(benchmark, fetch_online=lambda: calls.append(1) or rows), calls


def test_missing_data_offline_names_both_sources(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError) as error:
        get_benchmark("math500").load(tmp_path)
    message = str(error.value)
    assert str(tmp_path / "math500.jsonl") in message
    assert "HuggingFaceH4/MATH-500" in message and "HF_HUB_OFFLINE" in message


def test_no_directory_at_all_is_explained(monkeypatch):
    monkeypatch.delenv("HARNESS_BENCHMARK_DIR", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="HARNESS_BENCHMARK_DIR.*openai/openai_humaneval"):
        get_benchmark("humaneval").load()


def test_malformed_row_names_file_line_and_field(tmp_path):
    rows = [{"id": "a", "problem": "1+1", "answer": "2"}, {"id": "b", "problem": "2+2"}]
    (tmp_path / "aime24.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match=r"aime24.jsonl:2: missing field\(s\) answer"):
        get_benchmark("aime24").load(tmp_path)


def test_invalid_json_names_file_and_line(tmp_path):
    (tmp_path / "amc23.jsonl").write_text('{"id": "a", "problem": "p", "answer": "1"}\n{oops\n')
    with pytest.raises(ValueError, match=r"amc23.jsonl:2: not valid JSON"):
        get_benchmark("amc23").load(tmp_path)


BAD_LINES = {
    "malformed": (b"{oops", "not valid JSON"),
    "missing field": (b'{"id": "b", "problem": "p"}', r"missing field\(s\) answer"),
    "array row": (b"[1, 2]", "expected a JSON object, got list"),
    "string row": (b'"just text"', "expected a JSON object, got str"),
    "number row": (b"42", "expected a JSON object, got int"),
    "deeply nested": (b"[" * 200_000 + b"]" * 200_000, "JSON nested too deeply"),
    "not UTF-8": (b'{"id": "b", "problem": "caf\xe9", "answer": "1"}', r"not UTF-8 text \(byte 27\)"),
    "null answer": (b'{"id": "b", "problem": "p", "answer": null}', r"null value in field\(s\) answer"),
    "empty answer": (b'{"id": "b", "problem": "p", "answer": ""}', r"blank value in field\(s\) answer"),
    "blank answer": (b'{"id": "b", "problem": "p", "answer": "  \\t"}', r"blank value in field\(s\) answer"),
    "list answer": (b'{"id": "b", "problem": "p", "answer": []}', r"blank value in field\(s\) answer"),
    "null problem": (b'{"id": "b", "problem": null, "answer": "1"}', r"null value in field\(s\) problem"),
    "null id": (b'{"id": null, "problem": "p", "answer": "1"}', r"null value in field\(s\) id"),
    "false answer": (b'{"id": "b", "problem": "p", "answer": false}', "field answer is false, not text or a number"),
    "true answer": (b'{"id": "b", "problem": "p", "answer": true}', "field answer is true, not text or a number"),
    "mapping answer": (b'{"id": "b", "problem": "p", "answer": {"a": 1}}', 'field answer is {"a": 1}, not text'),
    "list problem": (b'{"id": "b", "problem": ["p"], "answer": "1"}', r'field problem is \["p"\], not text'),
    "NaN answer": (b'{"id": "b", "problem": "p", "answer": NaN}', "NaN is not a JSON value"),
    "1e999 answer": (b'{"id": "b", "problem": "p", "answer": 1e999}', "the number 1e999 is too large for a float"),
    "Infinity answer": (b'{"id": "b", "problem": "p", "answer": -Infinity}', "-Infinity is not a JSON value"),
    "lone surrogate": (
        b'{"id": "b", "problem": "What is \\ud800?", "answer": "1"}',
        r"the text holds an unpaired surrogate \(\\ud800 at character 8\)",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_bad_row_is_a_one_line_data_error_naming_file_and_line(tmp_path, case):
    line, problem = BAD_LINES[case]
    path = _write(tmp_path, GOOD.encode() + b"\n  \n" + line + b"\n" + GOOD.encode()) / "aime24.jsonl"
    with pytest.raises(DataError, match=rf"^benchmark aime24 {re.escape(str(path))}:4: {problem}") as error:
        get_benchmark("aime24").load(tmp_path)
    assert "\n" not in str(error.value)


def test_numeric_answer_is_accepted(tmp_path):
    _write(tmp_path, b'{"id": 1, "problem": "1+1", "answer": 2}\n')
    assert get_benchmark("aime24").load(tmp_path) == [{"id": 1, "problem": "1+1", "answer": 2}]


def test_an_answer_past_pythons_digit_limit_loads_as_its_exact_digits(tmp_path):
    digits = "7" * 5000  # int() refuses past 4300 digits; the row keeps the number as its text
    _write(tmp_path, b'{"id": 1, "problem": "p", "answer": ' + digits.encode() + b"}\n")
    row = get_benchmark("aime24").load(tmp_path)[0]
    assert row["answer"] == digits and get_benchmark("aime24").score(row, f"\\boxed{{{digits}}}") == {
        "acc": 1.0,
        "acc_strict": 1.0,
    }


@pytest.mark.parametrize("content", [b"", b"\n", b"  \n\t\n\n"])
def test_empty_or_blank_file_holds_no_rows_and_never_falls_back_to_the_hub(tmp_path, monkeypatch, content):
    path = _write(tmp_path, content) / "aime24.jsonl"
    benchmark, calls = _online(monkeypatch, get_benchmark("aime24"), [{"id": "x", "problem": "p", "answer": "1"}])
    with pytest.raises(DataError, match=rf"^benchmark aime24 {re.escape(str(path))}: the file holds no rows$"):
        benchmark.load(tmp_path)
    assert calls == []


def test_a_folder_or_a_dangling_link_in_place_of_the_file_is_refused(tmp_path, monkeypatch):
    benchmark, calls = _online(monkeypatch, get_benchmark("aime24"), [{"id": "x", "problem": "p", "answer": "1"}])
    (tmp_path / "aime24.jsonl").mkdir()
    with pytest.raises(DataError, match="aime24.jsonl: is a folder, not a JSONL file"):
        benchmark.load(tmp_path)
    (tmp_path / "aime24.jsonl").rmdir()
    (tmp_path / "aime24.jsonl").symlink_to(tmp_path / "gone.jsonl")
    with pytest.raises(DataError, match="aime24.jsonl: no such file"):
        benchmark.load(tmp_path)
    assert calls == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_a_data_error(tmp_path):
    path = _write(tmp_path, GOOD.encode()) / "aime24.jsonl"
    path.chmod(0)
    with pytest.raises(DataError, match="aime24.jsonl: cannot be read"):
        get_benchmark("aime24").load(tmp_path)


def test_data_directory_that_is_not_a_folder_is_not_a_download(tmp_path, monkeypatch):
    benchmark, calls = _online(monkeypatch, get_benchmark("aime24"), [{"id": "x", "problem": "p", "answer": "1"}])
    with pytest.raises(FileNotFoundError, match=r"benchmark data directory .*typo \(data_dir\) is not a folder"):
        benchmark.load(tmp_path / "typo")
    monkeypatch.setenv("HARNESS_BENCHMARK_DIR", str(tmp_path / "typo"))
    with pytest.raises(FileNotFoundError, match=r"\(\$HARNESS_BENCHMARK_DIR\) is not a folder"):
        benchmark.load()
    assert calls == []


def test_absurdly_long_prompt_is_refused_at_load(tmp_path):
    row = {"id": "huge", "problem": "x" * MAX_PROMPT_CHARS, "answer": "1"}
    path = _write(tmp_path, (GOOD + json.dumps(row) + "\n").encode()) / "aime24.jsonl"
    with pytest.raises(
        DataError, match=rf"{re.escape(str(path))}:2: prompt of 1,000,07\d characters \(the limit is 1,000,000\)"
    ):
        get_benchmark("aime24").load(tmp_path)


def test_row_whose_prompt_cannot_be_built_names_the_row(tmp_path):
    lcb = get_benchmark("livecodebench")
    row = dict.fromkeys(lcb.required_fields, "x") | {"starter_code": 5}
    path = _write(tmp_path, (json.dumps(row) + "\n").encode(), "livecodebench.jsonl") / "livecodebench.jsonl"
    with pytest.raises(DataError, match=rf"{re.escape(str(path))}:1: cannot build the prompt \(AttributeError: "):
        lcb.load(tmp_path)


def test_hub_adapter_keeps_a_missing_answer_missing():
    assert math_row_from_hub({"problem": "p", "answer": None}, 3) == {"id": "3", "problem": "p", "answer": None}
    assert math_row_from_hub({"problem": "p", "solution": "no box here"}, 0)["answer"] is None
    assert math_row_from_hub({"problem": "p", "solution": None}, 0)["answer"] is None
    assert math_row_from_hub({"question": "q", "solution": "so \\boxed{7}", "unique_id": "u"}, 0) == {
        "id": "u",
        "problem": "q",
        "answer": "7",
    }
    assert math_row_from_hub({"problem": "p", "answer": 12}, 0)["answer"] == "12"


def test_hub_rows_are_checked_like_local_ones(tmp_path, monkeypatch):
    hub_rows = [math_row_from_hub(raw, i) for i, raw in enumerate([{"problem": "p", "answer": "1"}, {"problem": "q"}])]
    benchmark, calls = _online(monkeypatch, get_benchmark("math500"), hub_rows)
    with pytest.raises(
        DataError, match=r"^benchmark math500 HuggingFaceH4/MATH-500 \(Hugging Face\) row 2: null value"
    ):
        benchmark.load(tmp_path)
    assert calls == [1]
    benchmark, _ = _online(monkeypatch, get_benchmark("math500"), [{"id": "a", "problem": "p"}])
    with pytest.raises(DataError, match=r"\(Hugging Face\) row 1: missing field\(s\) answer"):
        benchmark.load(tmp_path)
    benchmark, _ = _online(monkeypatch, get_benchmark("math500"), [])
    with pytest.raises(DataError, match=r"\(Hugging Face\): the dataset holds no rows"):
        benchmark.load(tmp_path)
    benchmark, _ = _online(monkeypatch, get_benchmark("math500"), hub_rows[:1])
    assert benchmark.load(tmp_path) == [{"id": "0", "problem": "p", "answer": "1"}]


def test_hub_failure_is_one_line(tmp_path, monkeypatch):
    def unreachable():
        raise ConnectionError("Max retries exceeded\n  caused by: timeout\n")

    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    benchmark = dataclasses.replace(get_benchmark("aime24"), fetch_online=unreachable)
    with pytest.raises(FileNotFoundError) as error:
        benchmark.load(tmp_path)
    assert str(error.value).endswith("(ConnectionError: Max retries exceeded caused by: timeout)")


def test_two_rows_with_one_id_are_refused_naming_file_lines_and_id(tmp_path):
    """Row 2 given row 1's id loaded silently: samples.jsonl held two problems under one id, which every
    report keys its per-problem scores by, so the two merged into one."""
    rows = [
        {"id": "2023-AMC12A-1", "problem": "1+1", "answer": "2"},
        {"id": "2023-AMC12A-2", "problem": "2+2", "answer": "4"},
        {"id": "2023-AMC12A-1", "problem": "3+3", "answer": "6"},
    ]
    (tmp_path / "amc23.jsonl").write_text(
        json.dumps(rows[0]) + "\n\n" + "".join(json.dumps(r) + "\n" for r in rows[1:])
    )
    with pytest.raises(DataError) as error:
        get_benchmark("amc23").load(tmp_path, limit=2)
    message = str(error.value)
    assert message == (
        f"benchmark amc23 {tmp_path / 'amc23.jsonl'}: lines 1 and 4 have the same id '2023-AMC12A-1'; "
        "every problem needs its own"
    )
    numeric = [{"id": 7, "problem": "p", "answer": "1"}, {"id": "7", "problem": "q", "answer": "2"}]
    (tmp_path / "amc23.jsonl").write_text("".join(json.dumps(r) + "\n" for r in numeric))
    with pytest.raises(DataError, match=r"lines 1 and 2 have the same id '7'"):  # the reports key ids as text
        get_benchmark("amc23").load(tmp_path)


def test_hub_rows_with_one_id_are_refused(tmp_path, monkeypatch):
    same = [{"id": "x", "problem": "p", "answer": "1"}, {"id": "x", "problem": "q", "answer": "2"}]
    benchmark, _ = _online(monkeypatch, get_benchmark("math500"), same)
    with pytest.raises(DataError, match=r"\(Hugging Face\): rows 1 and 2 have the same id 'x'"):
        benchmark.load(tmp_path)
