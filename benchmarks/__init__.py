"""Evaluation suites: data loading, prompts, grading, metrics and the eval runner.

    from benchmarks import get_benchmark, resolve_suite, grade_math, evaluate

See docs/design.md. `grade_math` is the project's one math answer checker (evaluation
and RL rewards); `evaluate` runs benchmarks with a sampler supplied by the harness.
"""

from benchmarks.benchmark import Benchmark, Metric
from benchmarks.benchmark_registry import BENCHMARKS, SUITES, get_benchmark, resolve_suite
from benchmarks.eval_logging import log_to_mlflow
from benchmarks.eval_metrics import pass_at_k
from benchmarks.families.arithmetic import arithmetic_space, generate_arithmetic
from benchmarks.grading.math_grader import extract_answer, grade_math, grade_math_batch
from benchmarks.runner import evaluate

__all__ = [
    "BENCHMARKS",
    "SUITES",
    "Benchmark",
    "Metric",
    "arithmetic_space",
    "evaluate",
    "extract_answer",
    "generate_arithmetic",
    "get_benchmark",
    "grade_math",
    "grade_math_batch",
    "log_to_mlflow",
    "pass_at_k",
    "resolve_suite",
]
