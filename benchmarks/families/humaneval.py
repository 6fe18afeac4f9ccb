"""HumanEval (Chen et al. 2021, https://github.com/openai/human-eval): 164 Python functions.

Data: humaneval.jsonl, openai/human-eval@6d43fb980f9fee3c892a914eda09951f772ad10d
(data/HumanEval.jsonl.gz), or the Hub dataset openai/openai_humaneval when online. Rows keep
their original fields: task_id, prompt, entry_point, canonical_solution, test.

The model sees the function signature and docstring and is asked for the whole function. The
program run in the sandbox is prompt + answer (a completed function replaces the stub, a bare
body continues it) + the row's tests + ``check(<entry_point>)``; it passes when it exits 0.
"""

import functools

from benchmarks.benchmark import Benchmark, Metric, hf_dataset_rows
from benchmarks.sandbox.code_blocks import extract_code
from benchmarks.sandbox.confined_run import SandboxLimits, run_python

HUMANEVAL_LIMITS = SandboxLimits(timeout_s=10.0)


def humaneval_prompt(row: dict) -> str:
    return (
        "Complete the following Python function. Reply with the complete function "
        "(signature included) in a ```python code block.\n\n"
        f"```python\n{row['prompt']}```"
    )


def humaneval_program(row: dict, completion: str) -> str:
    code = extract_code(completion)
    joiner = "\n" if f"def {row['entry_point']}" in code else ""
    return f"{row['prompt']}{joiner}{code}\n\n{row['test']}\n\ncheck({row['entry_point']})\n"


def grade_humaneval(row: dict, completion: str) -> tuple[float, str]:
    result = run_python(humaneval_program(row, completion), limits=HUMANEVAL_LIMITS)
    return float(result.passed), extract_code(completion)


HUMANEVAL = Benchmark(
    name="humaneval",
    source="openai/openai_humaneval",
    version="openai/human-eval@6d43fb980f9fee3c892a914eda09951f772ad10d",
    file_name="humaneval.jsonl",
    expected_rows=164,
    required_fields=("task_id", "prompt", "entry_point", "canonical_solution", "test"),
    make_prompt=humaneval_prompt,
    grade=grade_humaneval,
    metrics=(Metric("pass"),),
    reference=lambda row: row["entry_point"],
    fetch_online=functools.partial(hf_dataset_rows, "openai/openai_humaneval", lambda row, index: row),
    grade_in_threads=True,
    description="HumanEval: 164 hand-written Python functions with unit tests",
)
