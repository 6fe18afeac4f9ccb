"""Every offline benchmark loads with its documented row count, version and schema."""

import json

import pytest

from benchmarks import BENCHMARKS, get_benchmark

# SOURCES.md's table: benchmark -> (file, rows)
DOCUMENTED = {
    "aime24": ("aime24.jsonl", 30),
    "aime25": ("aime25.jsonl", 30),
    "hmmt25": ("hmmt_feb25.jsonl", 30),
    "math500": ("math500.jsonl", 500),
    "amc23": ("amc23.jsonl", 40),
    "amc22_23": ("amc22_23_aimo83.jsonl", 83),
    "humaneval": ("humaneval.jsonl", 164),
    "ifeval": ("ifeval.jsonl", 541),
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_loads_documented_rows(name, data_dir, manifest):
    benchmark = get_benchmark(name)
    file_name, rows = DOCUMENTED[name]
    assert benchmark.file_name == file_name
    assert benchmark.expected_rows == rows == manifest[file_name]["rows"]
    loaded = benchmark.load(data_dir)
    assert len(loaded) == rows
    assert all(field in row for row in loaded for field in benchmark.required_fields)
    assert benchmark.version.endswith("@" + manifest[file_name]["commit"])
    assert benchmark.version.startswith(manifest[file_name]["repo"])


def test_ids_are_unique_and_prompts_are_built(data_dir):
    for name in DOCUMENTED:
        benchmark = get_benchmark(name)
        rows = benchmark.load(data_dir)
        ids = [r.get("id", r.get("task_id", r.get("key"))) for r in rows]
        assert len(set(ids)) == len(ids), name
        assert all(isinstance(benchmark.prompt(r), str) and benchmark.prompt(r) for r in rows)


def test_math_prompt_asks_for_a_boxed_answer(data_dir):
    row = get_benchmark("aime24").load(data_dir, limit=1)[0]
    prompt = get_benchmark("aime24").prompt(row)
    assert prompt.startswith(row["problem"])
    assert prompt.endswith("\nPlease reason step by step, and put your final answer within \\boxed{}.")


def test_environment_variable_names_the_directory(data_dir, monkeypatch):
    monkeypatch.setenv("HARNESS_BENCHMARK_DIR", str(data_dir))
    assert len(get_benchmark("amc23").load(limit=7)) == 7


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


def test_every_benchmark_declares_metrics_with_direction():
    for benchmark in BENCHMARKS.values():
        assert benchmark.metrics and all(m.higher_is_better for m in benchmark.metrics)
        assert benchmark.source and benchmark.version
