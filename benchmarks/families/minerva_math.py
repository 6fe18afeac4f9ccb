"""Minerva Math: 272 undergraduate science and engineering problems (MIT OpenCourseWare) with final answers.

The quantitative-reasoning set of Lewkowycz et al. 2022 ("Solving Quantitative Reasoning Problems with
Language Models", arXiv 2206.14858): physics, chemistry, astronomy, biology, economics and more, with
numeric answers (often in scientific notation, "4.5e33", or with a stated precision) and expressions.
RL papers on math reasoning (SimpleRL-Zoo, Dr. GRPO and their followers) report it beside MATH-500 and
OlympiadBench.

| name         | local file         | rows | data (repo@commit)           | Hub id              |
|--------------|--------------------|------|------------------------------|---------------------|
| minerva_math | minerva_math.jsonl | 272  | QwenLM/Qwen2.5-Math@a45202bd | math-ai/minervamath |

(the file evaluation/data/minerva_math/test.jsonl of that commit)

The local file holds {"id", "problem", "answer"}: `minerva_row(raw)` maps a row of the pinned Qwen2.5-Math
file ({"problem", "solution", "type", "idx"}) onto it, the answer being the last \\boxed{} of the
solution (docs/benchmarks.md shows how to write the file). Online, math-ai/minervamath ("test" split;
fields question and answer; revision unpinned: none could be found from this offline machine) is mapped
by `math_row_from_hub`. Graded like every competition-math benchmark (`math_competitions.math_benchmark`):
the lenient verdict compares values, the strict one also demands the form asked for.
"""

from benchmarks.families.math_competitions import math_benchmark
from benchmarks.grading.math_grader import last_boxed_content

QWEN_MATH = "QwenLM/Qwen2.5-Math@a45202bd16f1ec06f433442dc1152d0074773465"


def minerva_row(raw: dict) -> dict:
    """A row of Qwen2.5-Math's minerva_math/test.jsonl as {"id", "problem", "answer"} (answer: the solution's
    last box; None when it has none, which loading refuses with the row's number)."""
    solution = raw.get("solution")
    answer = last_boxed_content(solution) if isinstance(solution, str) else None
    return {"id": str(raw.get("idx")), "problem": raw.get("problem"), "answer": answer}


MINERVA_MATH = math_benchmark(
    "minerva_math",
    "minerva_math.jsonl",
    272,
    QWEN_MATH,
    "math-ai/minervamath",
    "Minerva Math (272 MIT OpenCourseWare problems)",
)
