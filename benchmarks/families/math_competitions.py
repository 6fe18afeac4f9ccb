"""Competition math: AIME 2024, AIME 2025, HMMT Feb 2025, MATH-500, AMC 2023 (+ the 83-problem AMC).

The paper's five (CE-GPPO, Table 1) are aime24, aime25, hmmt25, math500 and amc23; amc22_23 is
the 83-problem AMC 12 2022+2023 set some papers report as "AMC". Rows are
{"id", "problem", "answer"}, problem and answer not null or blank (checked at load); answers are
graded by `benchmarks.grading.math_grader` (math-verify) with the problem passed, so that restating it
scores nothing; with no box, the answer statement that ends a completion counts (fallback
"statement", set per benchmark in MATH_BENCHMARKS). Each completion is graded in both of the grader's
modes in one pass: `acc` (the primary metric, the headline) is the lenient verdict (any equal value,
comparable with published tables), `acc_strict` the strict one (a worked-out answer in the form the
question asks for); samples.jsonl records both. Local files and their provenance
(repository@commit) are those of shared/benchmarks/manifest.json; online the Hub ids below are
read (test split, else the only one).

| name     | local file            | rows | data (repo@commit)                 | Hub id                    |
|----------|-----------------------|------|------------------------------------|---------------------------|
| aime24   | aime24.jsonl          | 30   | QwenLM/Qwen2.5-Math@a45202bd       | HuggingFaceH4/aime_2024   |
| aime25   | aime25.jsonl          | 30   | eth-sri/matharena@96440b20         | math-ai/aime25            |
| hmmt25   | hmmt_feb25.jsonl      | 30   | eth-sri/matharena@96440b20         | MathArena/hmmt_feb_2025   |
| math500  | math500.jsonl         | 500  | hkust-nlp/simpleRL-reason@cf1c7858 | HuggingFaceH4/MATH-500    |
| amc23    | amc23.jsonl           | 40   | QwenLM/Qwen2.5-Math@a45202bd       | math-ai/amc23             |
| amc22_23 | amc22_23_aimo83.jsonl | 83   | agentica-project/rllm@874daa4a     | AI-MO/aimo-validation-amc |
"""

import functools
from collections.abc import Callable

from benchmarks.benchmark import Benchmark, Metric, hf_dataset_rows
from benchmarks.grading.math_grader import DEFAULT_TIMEOUT_S, Extracted, grade_math_verdicts, last_boxed_content

MATH_INSTRUCTION = "Please reason step by step, and put your final answer within \\boxed{}."


def math_prompt(row: dict) -> str:
    return f"{row['problem']}\n{MATH_INSTRUCTION}"


MATH_METRICS = (Metric("acc"), Metric("acc_strict"))
"""The lenient verdict (primary: the headline, pass@k, suite averages) and the strict one beside it."""


def grade_math_row(
    row: dict, completion: str, fallback: str = "statement"
) -> tuple[dict[str, float], Extracted | None]:
    """({"acc": lenient, "acc_strict": strict} as 1.0 / 0.0, the answer graded) of a completion of `row`,
    the problem passed to the grader."""
    (verdict,) = grade_math_verdicts(
        [completion], [str(row["answer"])], DEFAULT_TIMEOUT_S, [row.get("problem")], fallback=fallback
    )
    return {"acc": float(verdict.lenient), "acc_strict": float(verdict.strict)}, verdict.extracted


def same_math_answer(first: str, other: str) -> bool:
    """Whether `other` is the same answer as `first` for the project's grader: `other`, boxed, graded in the
    lenient mode against `first` as the reference (no problem given: two answers are compared, not an answer
    and a question). For maj@k's answer classes (`benchmarks.answer_classes`)."""
    (verdict,) = grade_math_verdicts(["\\boxed{" + other + "}"], [first], DEFAULT_TIMEOUT_S, fallback="boxed")
    return verdict.lenient


def math_row_from_hub(raw: dict, index: int) -> dict:
    """Hub rows name their fields differently; map them onto {"id", "problem", "answer"}.

    A row without an answer keeps ``"answer": None`` (never the text "None"), so that loading
    refuses it with the row's number."""
    problem = raw.get("problem", raw.get("question"))
    answer = raw.get("answer")
    if answer is None and isinstance(raw.get("solution"), str):
        answer = last_boxed_content(raw["solution"])
    row_id = next((raw[k] for k in ("id", "unique_id", "problem_idx", "ID") if raw.get(k) is not None), index)
    return {"id": str(row_id), "problem": problem, "answer": None if answer is None else str(answer)}


def math_benchmark(
    name: str,
    file_name: str,
    rows: int,
    version: str,
    hub_id: str,
    description: str,
    fallback: str = "statement",
    fetch_online: Callable[[], list[dict]] | None = None,
) -> Benchmark:
    """A competition-math benchmark: rows {"id", "problem", "answer"}, the math prompt, the project's grader in
    both modes, maj@k's answer classes by the same grader. `fallback` is the grader's rule for completions
    without a box; `fetch_online` reads the Hub (default: `hub_id`'s test split, else its only one)."""
    return Benchmark(
        name=name,
        source=hub_id,
        version=version,
        file_name=file_name,
        expected_rows=rows,
        required_fields=("id", "problem", "answer"),
        nonempty_fields=("problem", "answer"),
        scalar_fields=("problem", "answer"),
        make_prompt=math_prompt,
        grade=functools.partial(grade_math_row, fallback=fallback),
        metrics=MATH_METRICS,
        reference=lambda row: str(row["answer"]),
        same_answer=same_math_answer,
        fetch_online=fetch_online or functools.partial(hf_dataset_rows, hub_id, math_row_from_hub),
        description=description,
    )


_QWEN_MATH = "QwenLM/Qwen2.5-Math@a45202bd16f1ec06f433442dc1152d0074773465"
_MATHARENA = "eth-sri/matharena@96440b20d0b90bb504edb7ee43c0e1e46567569f"

MATH_BENCHMARKS = (
    math_benchmark("aime24", "aime24.jsonl", 30, _QWEN_MATH, "HuggingFaceH4/aime_2024", "AIME 2024 I and II"),
    math_benchmark("aime25", "aime25.jsonl", 30, _MATHARENA, "math-ai/aime25", "AIME 2025 I and II"),
    math_benchmark("hmmt25", "hmmt_feb25.jsonl", 30, _MATHARENA, "MathArena/hmmt_feb_2025", "HMMT February 2025"),
    math_benchmark(
        "math500",
        "math500.jsonl",
        500,
        "hkust-nlp/simpleRL-reason@cf1c7858bfc145a27aa733e75d930d34f0d318a6",
        "HuggingFaceH4/MATH-500",
        "MATH-500 test split",
    ),
    math_benchmark("amc23", "amc23.jsonl", 40, _QWEN_MATH, "math-ai/amc23", "AMC 12 2023 (40 problems)"),
    math_benchmark(
        "amc22_23",
        "amc22_23_aimo83.jsonl",
        83,
        "agentica-project/rllm@874daa4acb7f451dc2a4b2b6e8ce28f5aa88d1f5",
        "AI-MO/aimo-validation-amc",
        "AMC 12A/12B 2022 and 2023 (83 problems)",
    ),
)
