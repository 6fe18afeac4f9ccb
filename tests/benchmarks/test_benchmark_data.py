"""Every offline benchmark loads with its documented row count, version and schema."""

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


def test_every_benchmark_declares_metrics_with_direction():
    for benchmark in BENCHMARKS.values():
        assert benchmark.metrics and all(m.higher_is_better for m in benchmark.metrics)
        assert benchmark.source and benchmark.version
