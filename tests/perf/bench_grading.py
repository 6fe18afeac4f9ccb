"""Math grading throughput (answers/s): the cost of `grade_math` as an RL reward and in evaluation.

Run: ``python tests/perf/bench_grading.py [--seconds 3]`` (reads $HARNESS_BENCHMARK_DIR, else
../shared/benchmarks). Prints one line per workload: integer answers (the fast path: arithmetic
rewards, AIME, AMC) and LaTeX answers from MATH-500 / HMMT (math-verify with sympy), as a mix
of correct and incorrect, short and long (~2 kB of reasoning) completions, then the LaTeX
correct and incorrect halves apart, then the mixed LaTeX workload from another thread (graded
in the subprocess worker).
"""

import argparse
import os
import random
import threading
import time
from pathlib import Path

from benchmarks import generate_arithmetic, get_benchmark, grade_math_batch

REASONING = "Let us think step by step. We expand, simplify and check each case carefully. " * 25


def completions_for(references: list[str], rng: random.Random) -> list[tuple[str, str]]:
    """Half correct, half wrong; half short ("\\boxed{x}"), half long (reasoning + box)."""
    pairs = []
    for i, reference in enumerate(references):
        answer = reference if i % 2 == 0 else rng.choice(references)
        prefix = REASONING if (i // 2) % 2 == 0 else ""
        pairs.append((f"{prefix}The final answer is \\boxed{{{answer}}}.", reference))
    return pairs


def throughput(pairs: list[tuple[str, str]], seconds: float) -> tuple[float, int]:
    graded, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        completions, references = zip(*pairs)
        grade_math_batch(list(completions), list(references))
        graded += len(pairs)
    return graded / (time.perf_counter() - started), graded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per workload")
    args = parser.parse_args()
    data_dir = (
        os.environ.get("HARNESS_BENCHMARK_DIR") or Path(__file__).resolve().parents[2].parent / "shared" / "benchmarks"
    )
    rng = random.Random(0)
    arithmetic = [row["answer"] for row in generate_arithmetic(3, "train", 400, seed=0)]
    integer = arithmetic + [row["answer"] for row in get_benchmark("aime24").load(data_dir)]
    latex = [
        row["answer"]
        for name in ("math500", "hmmt25")
        for row in get_benchmark(name).load(data_dir)
        if not row["answer"].strip().lstrip("-").isdigit()
    ]
    latex_pairs = completions_for(latex, rng)[:200]
    workloads = {
        "integer answers, mixed": completions_for(integer, rng),
        "LaTeX answers, mixed": latex_pairs,
        "LaTeX answers, correct only": latex_pairs[0::2],
        "LaTeX answers, incorrect only": latex_pairs[1::2],
    }
    grade_math_batch(["\\boxed{\\frac12}"], ["0.5"])  # warm-up: imports and first parse
    for name, pairs in workloads.items():
        rate, graded = throughput(pairs, args.seconds)
        print(f"{name:34s} {rate:10.0f} answers/s  ({graded} graded, main thread)")
    outcome = {}
    pairs = workloads["LaTeX answers, mixed"]
    thread = threading.Thread(target=lambda: outcome.update(result=throughput(pairs, args.seconds)))
    warm_up_worker = threading.Thread(target=lambda: grade_math_batch(["\\boxed{1}"], ["\\frac{2}{2}"]))
    warm_up_worker.start()
    warm_up_worker.join()
    thread.start()
    thread.join()
    rate, graded = outcome["result"]
    print(f"{'LaTeX answers, mixed, worker process':34s} {rate:10.0f} answers/s  ({graded} graded, other thread)")


if __name__ == "__main__":
    main()
