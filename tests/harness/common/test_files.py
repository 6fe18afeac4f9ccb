"""benchmarks.files: strict JSONL reading, atomic files and folders, stale-temporary clean-up."""

import os
import subprocess
import sys

import pytest

from harness.common.errors import DataError
from harness.common.files import (
    atomic_directory,
    atomic_file,
    atomic_write_text,
    read_jsonl,
    remove_stale_temporaries,
)


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"a": 1}\n{"a": \n', "x.jsonl:2: not valid JSON"),
        (b'{"a": 1}\n[1, 2]\n', "x.jsonl:2: expected a JSON object, got list"),
        (b'"text"\n', "x.jsonl:1: expected a JSON object, got str"),
        (b"7\n", "x.jsonl:1: expected a JSON object, got int"),
        (b'{"b": 1}\n', "x.jsonl:1: missing field(s) a"),
        (b'{"a": "\xff\xfe"}\n', "x.jsonl:1: not UTF-8 text"),
        (b"", "holds no rows"),
        (b"\n   \n\n", "holds no rows"),
        (b"[" * 100_000 + b"\n", "x.jsonl:1:"),
        (b'{"a": NaN}\n', "x.jsonl:1: NaN is not a JSON value"),
        (b'{"a": 1e999}\n', "x.jsonl:1: the number 1e999 is too large for a float"),
        (b'{"a": -' + b"9" * 400 + b".5}\n", "x.jsonl:1: the number -999999"),
        (b'{"a": 1e-400}\n', "x.jsonl:1: the number 1e-400 is too small for a float (it would read as 0)"),
        (b'{"a": "x", "k\\udfff": 1}\n', "x.jsonl:1: the text holds an unpaired surrogate (\\udfff at character 1)"),
    ],
)
def test_bad_jsonl_is_one_line_data_error(tmp_path, content, message):
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(DataError) as err:
        read_jsonl(path, required=("a",), what="task.path")
    text = str(err.value)
    assert message in text and text.startswith("task.path ") and "\n" not in text


def test_missing_file_and_good_rows(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        read_jsonl(tmp_path / "nope.jsonl")
    path = tmp_path / "ok.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2, "b": "é"}\n', encoding="utf-8")
    assert read_jsonl(path, required=("a",)) == [{"a": 1}, {"a": 2, "b": "é"}]


def test_numbers_keep_their_value(tmp_path):
    path = tmp_path / "n.jsonl"
    big = "-" + "7" * 5000  # past Python's int() digit limit: kept as its exact text
    path.write_text(f'{{"a": {big}, "b": 0.0, "c": -0e5, "d": 1.5e300, "e": 2.5e-300, "f": 12}}\n')
    assert read_jsonl(path) == [{"a": big, "b": 0.0, "c": 0.0, "d": 1.5e300, "e": 2.5e-300, "f": 12}]


def test_a_folder_where_the_file_goes_is_named_before_anything_is_written(tmp_path):
    (tmp_path / "results.json").mkdir()
    with pytest.raises(IsADirectoryError) as error, atomic_file(tmp_path / "results.json"):
        pass
    assert error.value.filename == str(tmp_path / "results.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]  # no temporary left


def test_atomic_file_keeps_old_content_when_the_write_fails(tmp_path):
    target = tmp_path / "results.json"
    atomic_write_text(target, "old")
    with pytest.raises(RuntimeError), atomic_file(target) as sink:
        sink.write("half of the new")
        raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]
    with atomic_file(target, "wb") as sink:
        sink.write(b"new")
    assert target.read_bytes() == b"new"


def test_atomic_directory_replaces_or_keeps_the_winner(tmp_path):
    target = tmp_path / "model"
    with atomic_directory(target) as tmp:
        (tmp / "a").write_text("1")
    with atomic_directory(target) as tmp:
        (tmp / "b").write_text("2")
    assert sorted(p.name for p in target.iterdir()) == ["b"]
    with atomic_directory(target, replace=False) as tmp:
        (tmp / "c").write_text("3")
    assert sorted(p.name for p in target.iterdir()) == ["b"]
    with pytest.raises(KeyError), atomic_directory(target) as tmp:
        (tmp / "d").write_text("4")
        raise KeyError("stop")
    assert sorted(p.name for p in target.iterdir()) == ["b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_stale_temporaries_of_dead_writers_are_removed_live_ones_kept(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    (tmp_path / f".last.ckpt.{dead_pid}.abc123.tmp").write_text("partial")
    (tmp_path / f".model.{dead_pid}.zz_9.tmp").mkdir()
    live = tmp_path / f".last.ckpt.{os.getpid()}.def456.tmp"
    live.write_text("being written")
    (tmp_path / "last.ckpt").write_text("keep")
    (tmp_path / ".hidden.tmp").write_text("not ours")
    removed = remove_stale_temporaries(tmp_path)
    assert len(removed) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, "last.ckpt", ".hidden.tmp"])
