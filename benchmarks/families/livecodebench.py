"""LiveCodeBench code generation (Jain et al. 2024, https://livecodebench.github.io/), release_v5.

Data: the Hub dataset livecodebench/code_generation_lite, release_v5 = its files test.jsonl,
test2.jsonl ... test5.jsonl (880 problems, May 2023 - Jan 2025), fetched when online; offline
a file livecodebench.jsonl of the same rows in the data directory is read instead (none ships
with shared/benchmarks). Row fields used: question_id, question_content, starter_code,
public_test_cases (JSON), private_test_cases (JSON, or base64 of zlib of a pickled JSON string),
metadata (JSON with "func_name" for LeetCode-style problems).

A completion passes when its program passes every test, each run in the sandbox:
"stdin" tests feed the input and compare stdout line by line (numbers with a 1e-6 tolerance);
"functional" tests call ``Solution().<func_name>(*args)`` and compare the JSON result.
"""

import base64
import io
import json
import pickle
import zlib

from benchmarks.benchmark import Benchmark, Metric
from benchmarks.sandbox.code_blocks import extract_code
from benchmarks.sandbox.confined_run import SandboxLimits, run_python
from harness.common.files import read_jsonl

LCB_DATASET = "livecodebench/code_generation_lite"
LCB_RELEASE = "release_v5"
LCB_RELEASE_FILES = ("test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl")
LCB_FIELDS = (
    "question_id",
    "question_content",
    "starter_code",
    "public_test_cases",
    "private_test_cases",
    "metadata",
)
LCB_LIMITS = SandboxLimits(timeout_s=6.0)


def livecodebench_prompt(row: dict) -> str:
    if row["starter_code"].strip():
        how = (
            "Complete the following starter code and return the whole solution in a ```python "
            f"code block.\n```python\n{row['starter_code']}\n```"
        )
    else:
        how = (
            "Write a Python program that reads the input from standard input and writes the "
            "answer to standard output. Return it in a ```python code block."
        )
    return f"{row['question_content']}\n\n{how}"


class _NoGlobalsUnpickler(pickle.Unpickler):
    """The private tests are a pickled string: refuse anything that would import code."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from test data")


def decode_tests(field: str) -> list[dict]:
    """Test cases from a JSON string or from base64(zlib(pickle(JSON string)))."""
    try:
        return json.loads(field)
    except json.JSONDecodeError:
        unpickled = _NoGlobalsUnpickler(io.BytesIO(zlib.decompress(base64.b64decode(field)))).load()
        return json.loads(unpickled) if isinstance(unpickled, str | bytes) else unpickled


def _same_output(actual: str, expected: str) -> bool:
    actual_lines = [line.strip() for line in actual.strip().splitlines()]
    expected_lines = [line.strip() for line in expected.strip().splitlines()]
    if actual_lines == expected_lines:
        return True
    if len(actual_lines) != len(expected_lines):
        return False
    for got, want in zip(actual_lines, expected_lines):
        got_tokens, want_tokens = got.split(), want.split()
        if len(got_tokens) != len(want_tokens):
            return False
        for a, b in zip(got_tokens, want_tokens):
            try:
                if abs(float(a) - float(b)) > 1e-6:
                    return False
            except ValueError:
                if a != b:
                    return False
    return True


def _functional_program(code: str, func_name: str, test: dict) -> str:
    return (
        f"{code}\n\n"
        "import json as _json\n"
        f"_args = [_json.loads(line) for line in {test['input']!r}.split('\\n') if line.strip()]\n"
        f"_result = Solution().{func_name}(*_args)\n"
        f"if _json.loads(_json.dumps(_result)) != _json.loads({test['output']!r}):\n"
        "    raise SystemExit(f'wrong answer: {_result!r}')\n"
    )


def passes_tests(code: str, tests: list[dict], func_name: str | None) -> bool:
    """True when `code` passes every test (stops at the first failure)."""
    for test in tests:
        if test.get("testtype") == "functional":
            result = run_python(_functional_program(code, func_name or "", test), limits=LCB_LIMITS)
            ok = result.passed
        else:
            result = run_python(code, stdin=test["input"], limits=LCB_LIMITS)
            ok = result.passed and _same_output(result.stdout, test["output"])
        if not ok:
            return False
    return True


def grade_livecodebench(row: dict, completion: str) -> tuple[float, str]:
    code = extract_code(completion)
    tests = decode_tests(row["public_test_cases"]) + decode_tests(row["private_test_cases"])
    func_name = json.loads(row["metadata"] or "{}").get("func_name")
    return float(passes_tests(code, tests, func_name)), code


def fetch_livecodebench() -> list[dict]:
    """The release_v5 rows from the Hub (needs network)."""
    from huggingface_hub import hf_hub_download

    rows = []
    for name in LCB_RELEASE_FILES:
        path = hf_hub_download(LCB_DATASET, name, repo_type="dataset")
        rows += read_jsonl(path, required=LCB_FIELDS, what=f"{LCB_DATASET} file")
    return rows


LIVECODEBENCH = Benchmark(
    name="livecodebench",
    source=LCB_DATASET,
    version=LCB_RELEASE,
    file_name="livecodebench.jsonl",
    expected_rows=880,
    required_fields=LCB_FIELDS,
    make_prompt=livecodebench_prompt,
    grade=grade_livecodebench,
    metrics=(Metric("pass"),),
    reference=lambda row: row["question_id"],
    fetch_online=fetch_livecodebench,
    grade_in_threads=True,
    description="LiveCodeBench code generation, release_v5 (880 problems)",
)
