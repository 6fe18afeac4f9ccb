"""OlympiadBench's English, text-only, open-ended competition maths with one numeric answer: the subset graded here.

OlympiadBench (He et al. 2024, arXiv 2402.14008) holds 8,476 olympiad and college-entrance problems in
maths and physics, English and Chinese, some with figures. RL papers report its English, text-only,
open-ended maths competition part, `OE_TO_maths_en_COMP` (675 problems in the copy RL evaluations use).
Of those, this benchmark keeps the problems whose answer is one number, the kind the project's grader
settles without ambiguity:

    answer_type == "Numerical" and not is_multiple_answer and no unit        (502 of the 675)

left out (173): expressions such as 2n - 2 (64), tuples (33), intervals (6), several numbers (63, one of
them with a unit) and one number with a unit (7: "km/h", "^{\\circ}", "%", ...). Hence the name
`olympiadbench_num`: its scores are not comparable with published all-675 OlympiadBench numbers.

| name              | local file                     | rows | data (repo@commit)           |
|-------------------|--------------------------------|------|------------------------------|
| olympiadbench_num | olympiadbench_en_numeric.jsonl | 502  | QwenLM/Qwen2.5-Math@a45202bd |

(the file evaluation/data/olympiadbench/test.jsonl of that commit)

`olympiad_numeric_rows(raw_rows)` applies the rule above to rows of that file (or of the Hub's
Hothan/OlympiadBench, config OE_TO_maths_en_COMP, split "train": the fields of the OlympiadBench
release, id, question, context, final_answer, answer_type, is_multiple_answer, unit) and maps
each kept row to {"id", "problem", "answer"}: the row's id, its question, its single final answer
without the $...$ around it. The local file is what it writes (docs/benchmarks.md shows how); online
the Hub dataset goes through it (revision unpinned: none could be found from this offline machine).
Graded like every competition-math benchmark (`math_competitions.math_benchmark`).
"""

from benchmarks.benchmark import hf_dataset_rows
from benchmarks.families.math_competitions import math_benchmark

QWEN_MATH = "QwenLM/Qwen2.5-Math@a45202bd16f1ec06f433442dc1152d0074773465"
HUB_ID, HUB_CONFIG = "Hothan/OlympiadBench", "OE_TO_maths_en_COMP"


def is_single_number(raw: dict) -> bool:
    """The subset's rule: one numeric final answer, without a unit."""
    answers = raw.get("final_answer")
    return (
        raw.get("answer_type") == "Numerical"
        and not raw.get("is_multiple_answer")
        and not raw.get("unit")
        and isinstance(answers, list)
        and len(answers) == 1
    )


def olympiad_row(raw: dict) -> dict:
    """A kept OlympiadBench row as {"id", "problem", "answer"}; a context paragraph, where a row has one,
    goes before its question."""
    answer = raw["final_answer"][0]
    if isinstance(answer, str):
        answer = answer.strip().removeprefix("$").removesuffix("$").strip()
    context = raw.get("context")
    problem = raw.get("question")
    if context and isinstance(problem, str):
        problem = f"{context}\n\n{problem}"
    return {"id": str(raw.get("id")), "problem": problem, "answer": answer}


def olympiad_numeric_rows(raw_rows: list[dict]) -> list[dict]:
    """The subset of OE_TO_maths_en_COMP rows (module docstring), as benchmark rows."""
    return [olympiad_row(raw) for raw in raw_rows if is_single_number(raw)]


def _hub_rows() -> list[dict]:
    return olympiad_numeric_rows(hf_dataset_rows(HUB_ID, lambda raw, index: raw, config=HUB_CONFIG))


OLYMPIADBENCH_NUM = math_benchmark(
    "olympiadbench_num",
    "olympiadbench_en_numeric.jsonl",
    502,
    QWEN_MATH,
    HUB_ID,
    f"OlympiadBench {HUB_CONFIG}, one numeric answer without unit (502 of 675)",
    fetch_online=_hub_rows,
)
