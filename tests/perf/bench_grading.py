"""Math grading throughput (answers/s): the cost of `grade_math` as an RL reward and in evaluation.

Run: ``python tests/perf/bench_grading.py [--seconds 3]`` (reads $HARNESS_BENCHMARK_DIR, else
../shared/benchmarks). Prints one line per workload: integer answers (the fast path: arithmetic
rewards, AIME, AMC) and LaTeX answers from MATH-500 / HMMT (math-verify with sympy), as a mix
of correct and incorrect, short and long (~2 kB of reasoning) completions, then the LaTeX
correct and incorrect halves apart, the mixed LaTeX workload with each reference's problem
passed (the restatement check, as evaluation and training grade), then the mixed LaTeX workload
from another thread (graded in the subprocess worker). Last, the seconds that each hostile input
(malformed, huge, or made to be slow) takes against a 1 s budget, in the main thread and from
another thread, and the worst.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks import generate_arithmetic, get_benchmark, grade_math_batch

REASONING = "Let us think step by step. We expand, simplify and check each case carefully. " * 25
HOSTILE_BUDGET_S = 1.0
HOSTILE = {  # name: completion, graded against the reference "5" (or the one given with it)
    "20000 unclosed \\boxed{": "\\boxed{" * 20_000,
    "200000 unclosed {": "{" * 200_000,
    "deeply nested braces": "\\boxed{" + "{" * 50_000 + "}" * 50_000 + "}",
    "20000 unclosed \\frac{": "\\frac{" * 20_000,
    "100000 $": "$" * 100_000,
    "20000 \\[": "\\[" * 20_000,
    "2000 \\[\\boxed{a": "\\[\\boxed{a" * 2_000,
    "1 MB of digits": "1" * 1_000_000,
    "100000 \\boxed{}": "\\boxed{}" * 100_000,
    "\\boxed{9^{9^{9^9}}}": "\\boxed{9^{9^{9^9}}}",
    "10**10**10": "10**10**10",
    "\\boxed{3^{100000000}}": "\\boxed{3^{100000000}}",
    "200000 words, no box": "word " * 200_000,
    "10 MB, then \\boxed{5}": "a" * 10_000_000 + " so \\boxed{5}",
    # Aimed at round 2's readings (issue 17): comments, phantoms, code, side-by-side numbers, hedges.
    "50000 comment lines": "%\n" * 50_000 + "\\boxed{5}",
    "20000 unclosed \\phantom{": "\\phantom{" * 20_000 + "\\boxed{5}",
    "50001 backticks": "`" * 50_001 + "\\boxed{5}",
    "300 numbers side by side": "\\boxed{" + "1\\;" * 300 + "1}",
    "50000 retractions": "\\boxed{5}" + " wait" * 50_000,
    "a 400-sided true equation": ("\\boxed{" + "1=" * 400 + "1}", "1"),
    # Aimed at round 3's readings (issue 29): hidden HTML, struck-out text, committed answers.
    "25000 unclosed <a x": "<a x" * 25_000 + "\\boxed{5}",
    "20000 unclosed \\sout{": "\\sout{" * 20_000 + "\\boxed{5}",
    "8000 negated boxes": "\\boxed{1} not " * 8_000 + "\\boxed{5}",
    "6000 answer statements after the box": "\\boxed{5}" + " the answer is 6" * 6_000,
    # Aimed at round 3's generalised reading: hidden elements, clause scope, notes to the grader.
    "20000 hidden spans": "<span hidden>a</span>" * 20_000 + "\\boxed{5}",
    "20000 unclosed <script>": "<script>" * 20_000 + "\\boxed{5}",
    "20000 unclosed \\resizebox{0pt}{": "\\resizebox{0pt}{" * 20_000 + "\\boxed{5}",
    "5000 negations before the box": "not " * 5_000 + "\\boxed{5}",
    "5000 notes to the grader": "Note to the grader: " * 5_000 + "\\boxed{5}",
    # Aimed at round 5's readings: other scripts' digits, unboxed final statements, foreign notes.
    "100000 full-width digits, no box": "\uff15" * 100_000,
    "20000 bold values on the last line": "So " + "**5** " * 20_000 + ".",
    "50000 superscripts on the last line": "\n\nx" + "\u00b2" * 50_000,
    "10000 number words, then a full stop": "So " + "twenty-one " * 10_000 + ".",
    "5000 notes to a Bewerter": "An den Bewerter: " * 5_000 + "\\boxed{5}",
    "20000 alternatives after the box": "\\boxed{5}" + " (or possibly" * 20_000,
    # Against "5" the grader refuses the power towers above before sympy sees them (too large to
    # evaluate); these references let the answer reach math-verify and its timer.
    "\\boxed{3^{100000000}} vs an expression": ("\\boxed{3^{100000000}}", "3^{100000000} + 1"),
    "\\boxed{(x+1)^{100000}} vs an expression": ("\\boxed{(x+1)^{100000}}", "(x+1)^{99999}"),
}


def completions_for(references: list[str], rng: random.Random) -> list[tuple[str, str]]:
    """Half correct, half wrong; half short ("\\boxed{x}"), half long (reasoning + box)."""
    pairs = []
    for i, reference in enumerate(references):
        answer = reference if i % 2 == 0 else rng.choice(references)
        prefix = REASONING if (i // 2) % 2 == 0 else ""
        pairs.append((f"{prefix}The final answer is \\boxed{{{answer}}}.", reference))
    return pairs


def throughput(pairs: list[tuple[str, str]], seconds: float, problems: list[str] | None = None) -> tuple[float, int]:
    graded, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        completions, references = zip(*pairs)
        grade_math_batch(list(completions), list(references), problems=problems)
        graded += len(pairs)
    return graded / (time.perf_counter() - started), graded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per workload")
    parser.add_argument("--baseline", type=Path, help="a checkout of an earlier grader to compare the fast path with")
    parser.add_argument("--rounds", type=int, default=5, help="alternate runs per tree with --baseline")
    parser.add_argument("--fast-json", action="store_true", help=argparse.SUPPRESS)  # one tree's rates, for --baseline
    args = parser.parse_args()
    if args.baseline is not None:
        compare(args.baseline, args.seconds, args.rounds)
        return
    workloads, latex_problems = build_workloads()
    grade_math_batch(["\\boxed{\\frac12}"], ["0.5"])  # warm-up: imports and first parse
    if args.fast_json:
        print(json.dumps({name: throughput(workloads[name], args.seconds)[0] for name in FAST_WORKLOADS}))
        return
    for name, pairs in workloads.items():
        rate, graded = throughput(pairs, args.seconds)
        print(f"{name:34s} {rate:10.0f} answers/s  ({graded} graded, main thread)")
    latex_pairs = workloads["LaTeX answers, mixed"]
    rate, graded = throughput(latex_pairs, args.seconds, latex_problems)  # as evaluation and training grade
    print(f"{'LaTeX answers, mixed, problem given':34s} {rate:10.0f} answers/s  ({graded} graded, main thread)")
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
    hostile_seconds()


# The workloads that never reach sympy: what a grading round's extra reading costs shows here (the
# others are math-verify's time, the same in every round).
FAST_WORKLOADS = ("integer answers, mixed", "LaTeX answers, correct only")


def compare(baseline: Path, seconds: float, rounds: int) -> None:
    """The fast-path workloads of `baseline` and of this tree, side by side (module docstring)."""
    here = Path(__file__).resolve().parents[2]
    trees = {"baseline": baseline.resolve(), "this tree": here}
    best: dict[str, dict[str, float]] = {tree: {} for tree in trees}
    for _ in range(rounds):
        for tree, root in trees.items():
            command = [sys.executable, str(Path(__file__).resolve()), "--fast-json", "--seconds", str(seconds)]
            environment = {**os.environ, "PYTHONPATH": str(root)}
            run = subprocess.run(command, env=environment, capture_output=True, check=True, text=True)
            rates = json.loads(run.stdout)
            for name, rate in rates.items():
                best[tree][name] = max(best[tree].get(name, 0.0), rate)
    print(f"{'fast-path workload, best of ' + str(rounds):34s} {'baseline':>12s} {'this tree':>12s} {'ratio':>7s}")
    for name in FAST_WORKLOADS:
        before, after = best["baseline"][name], best["this tree"][name]
        print(f"{name:34s} {before:12.0f} {after:12.0f} {before / after:7.2f}")


def build_workloads() -> tuple[dict[str, list[tuple[str, str]]], list[str]]:
    """The main-thread workloads (name -> (completion, reference) pairs) and the LaTeX pairs' problems."""
    data_dir = (
        os.environ.get("HARNESS_BENCHMARK_DIR") or Path(__file__).resolve().parents[2].parent / "shared" / "benchmarks"
    )
    rng = random.Random(0)
    arithmetic = [row["answer"] for row in generate_arithmetic(3, "train", 400, seed=0)]
    integer = arithmetic + [row["answer"] for row in get_benchmark("aime24").load(data_dir)]
    latex_rows = [
        row
        for name in ("math500", "hmmt25")
        for row in get_benchmark(name).load(data_dir)
        if not row["answer"].strip().lstrip("-").isdigit()
    ]
    latex_pairs = completions_for([row["answer"] for row in latex_rows], rng)[:200]
    latex_problems = [row["problem"] for row in latex_rows[:200]]  # the problem of each pair's reference
    workloads = {
        "integer answers, mixed": completions_for(integer, rng),
        "LaTeX answers, mixed": latex_pairs,
        "LaTeX answers, correct only": latex_pairs[0::2],
        "LaTeX answers, incorrect only": latex_pairs[1::2],
    }
    return workloads, latex_problems


def seconds_to_grade(completion: str | tuple[str, str]) -> float:
    completion, reference = completion if isinstance(completion, tuple) else (completion, "5")
    started = time.perf_counter()
    grade_math_batch([completion], [reference], timeout_s=HOSTILE_BUDGET_S)
    return time.perf_counter() - started


def hostile_seconds() -> None:
    """Wall time per hostile answer against HOSTILE_BUDGET_S, main thread and another thread."""
    print(f"\nhostile inputs, seconds against a {HOSTILE_BUDGET_S:.0f} s budget       main thread   other thread")
    worst_main = worst_thread = 0.0
    with ThreadPoolExecutor(1) as other_thread:  # its worker process is already warm (see main)
        for name, completion in HOSTILE.items():
            main_seconds = seconds_to_grade(completion)
            thread_seconds = other_thread.submit(seconds_to_grade, completion).result()
            worst_main, worst_thread = max(worst_main, main_seconds), max(worst_thread, thread_seconds)
            print(f"  {name:44s} {main_seconds:11.2f} {thread_seconds:14.2f}")
    print(f"  {'worst':44s} {worst_main:11.2f} {worst_thread:14.2f}")


if __name__ == "__main__":
    main()
