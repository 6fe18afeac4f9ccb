"""HumanEval grading: every canonical solution passes, wrong code fails, answer formats."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks import get_benchmark
from benchmarks.sandbox.code_blocks import extract_code

HUMANEVAL = get_benchmark("humaneval")


@pytest.fixture(scope="module")
def rows(data_dir):
    return HUMANEVAL.load(data_dir)


def test_every_canonical_solution_passes(rows):
    with ThreadPoolExecutor(max_workers=4) as pool:
        scores = list(pool.map(lambda row: HUMANEVAL.score(row, row["canonical_solution"])["pass"], rows))
    assert [row["task_id"] for row, score in zip(rows, scores) if score != 1.0] == []


def test_fenced_complete_function_passes(rows):
    row = rows[0]
    answer = f"Here you go:\n```python\n{row['prompt']}{row['canonical_solution']}```\nDone."
    assert HUMANEVAL.score(row, answer) == {"pass": 1.0}


def test_wrong_or_broken_code_fails(rows):
    row = rows[0]
    assert HUMANEVAL.score(row, "    return False\n") == {"pass": 0.0}
    assert HUMANEVAL.score(row, "```python\ndef has_close_elements(:\n```") == {"pass": 0.0}


def test_prompt_shows_the_stub(rows):
    assert rows[0]["prompt"] in HUMANEVAL.prompt(rows[0])


def test_extract_code():
    assert extract_code("text\n```python\nx = 1\n```\nmore ```py\ny = 2\n```") == "y = 2\n"
    assert extract_code("```\nz = 3\n```") == "z = 3\n"
    assert extract_code("    return 1\n") == "    return 1\n"
    assert extract_code("```python\nunterminated = True\n") == "unterminated = True\n"
