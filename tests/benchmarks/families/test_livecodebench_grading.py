"""LiveCodeBench grading on a small fixture with the Hub rows' shape (stdin and functional tests)."""

import base64
import json
import pickle
import zlib

import pytest

from benchmarks import get_benchmark
from benchmarks.families.livecodebench import decode_tests

LCB = get_benchmark("livecodebench")


def _private(tests: list[dict]) -> str:
    """The Hub's encoding of private tests: base64(zlib(pickle(JSON string)))."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode()


STDIN_ROW = {
    "question_id": "abc000_a",
    "question_title": "Sum",
    "question_content": "Read two integers A and B and print A+B.",
    "platform": "atcoder",
    "contest_id": "abc000",
    "contest_date": "2024-01-01T00:00:00",
    "difficulty": "easy",
    "starter_code": "",
    "public_test_cases": json.dumps([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]),
    "private_test_cases": _private(
        [
            {"input": "10 -4\n", "output": "6\n", "testtype": "stdin"},
            {"input": "0 0\n", "output": "0", "testtype": "stdin"},
        ]
    ),
    "metadata": "{}",
}
FUNCTIONAL_ROW = {
    "question_id": "9999",
    "question_title": "two-sum",
    "question_content": "Return the indices of the two numbers that add up to target.",
    "platform": "leetcode",
    "contest_id": "weekly-contest-0",
    "contest_date": "2024-01-01T00:00:00",
    "difficulty": "easy",
    "starter_code": "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        ",
    "public_test_cases": json.dumps([{"input": "[2, 7, 11, 15]\n9", "output": "[0, 1]", "testtype": "functional"}]),
    "private_test_cases": _private([{"input": "[3, 2, 4]\n6", "output": "[1, 2]", "testtype": "functional"}]),
    "metadata": json.dumps({"func_name": "twoSum"}),
}
SUM_SOLUTION = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
TWO_SUM_SOLUTION = """```python
from typing import List

class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        seen = {}
        for i, x in enumerate(nums):
            if target - x in seen:
                return [seen[target - x], i]
            seen[x] = i
```"""


def test_decodes_both_encodings():
    assert decode_tests(STDIN_ROW["public_test_cases"])[0]["output"] == "3\n"
    assert [t["input"] for t in decode_tests(STDIN_ROW["private_test_cases"])] == ["10 -4\n", "0 0\n"]


def test_refuses_pickled_code():
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    with pytest.raises(pickle.UnpicklingError):
        decode_tests(base64.b64encode(zlib.compress(pickle.dumps(Evil()))).decode())


def test_stdin_problem():
    assert LCB.score(STDIN_ROW, SUM_SOLUTION) == {"pass": 1.0}
    assert LCB.score(STDIN_ROW, "```python\nprint(3)\n```") == {"pass": 0.0}  # passes only the public test


def test_functional_problem():
    assert LCB.score(FUNCTIONAL_ROW, TWO_SUM_SOLUTION) == {"pass": 1.0}
    assert LCB.score(FUNCTIONAL_ROW, TWO_SUM_SOLUTION.replace("[seen[target - x], i]", "[i, i]")) == {"pass": 0.0}


def test_prompts():
    assert "standard input" in LCB.prompt(STDIN_ROW)
    assert FUNCTIONAL_ROW["starter_code"] in LCB.prompt(FUNCTIONAL_ROW)


def test_loads_a_local_file_of_hub_rows(tmp_path):
    (tmp_path / "livecodebench.jsonl").write_text(json.dumps(STDIN_ROW) + "\n" + json.dumps(FUNCTIONAL_ROW) + "\n")
    assert [r["question_id"] for r in LCB.load(tmp_path)] == ["abc000_a", "9999"]


def test_offline_without_a_file_names_the_hub_dataset(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="livecodebench/code_generation_lite"):
        LCB.load(tmp_path)
