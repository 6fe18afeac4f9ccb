"""The graded set through every math grader at hand, side by side: agreement with a careful reading.

Run: ``python tests/perf/bench_grader_agreement.py [--minerva-python PATH]`` (reads
$HARNESS_BENCHMARK_DIR, else ../shared/benchmarks, for the MATH-500 problems the set names).

Graders, each on the same (completion, reference) pairs of benchmarks/data/graded_set.jsonl:
- ours, as training calls it (problem and truncation passed) and as evaluation calls it (problem);
- plain math-verify: ``verify(parse("\\boxed{reference}"), parse(completion))``, default settings;
- lm-eval ``hendrycks_math500``: its ``process_results`` (the text between the first and last ``$``,
  string-normalised, against the reference);
- lm-eval ``minerva_math500``: its ``process_results``, both metrics (``exact_match``: the "Final
  Answer: The final answer is X. I hope it is correct." pattern, compared with sympy's
  ``parse_latex``; ``math_verify``). That code needs antlr4-python3-runtime 4.11, which the project's
  environment cannot have (math-verify pins 4.13.2), so it runs in a separate interpreter given by
  --minerva-python (default $MINERVA_PYTHON), made with::

      python -m venv /tmp/minerva-env
      /tmp/minerva-env/bin/pip install "antlr4-python3-runtime==4.11.*" sympy
      /tmp/minerva-env/bin/pip install --no-deps math-verify latex2sympy2_extended

  Without one the minerva columns read "not run".

Prints, per grader: agreement with the reading, false positives (all; restated questions and
unevaluated or wrongly formed answers, the "restatement" probes; cut-off or answerless text) and
false negatives; then agreement per kind of pair.
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRADED_SET = ROOT / "benchmarks" / "data" / "graded_set.jsonl"
sys.path.insert(0, str(ROOT))

# Runs inside the minerva interpreter: reads [completion, reference] lines, writes [exact_match, math_verify].
MINERVA_WORKER = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("minerva_utils", sys.argv[1])
minerva = importlib.util.module_from_spec(spec)
spec.loader.exec_module(minerva)
for line in sys.stdin:
    completion, reference = json.loads(line)
    solution = "\\\\boxed{" + reference + "}"
    doc = {"solution": solution, "answer": minerva.normalize_final_answer(reference)}
    try:
        scores = minerva.process_results(doc, [completion])
        print(json.dumps([scores["exact_match"], scores["math_verify"]]), flush=True)
    except Exception:
        print(json.dumps([0, 0]), flush=True)
"""


def load_graded_set(data_dir: Path) -> list[dict]:
    from benchmarks import get_benchmark

    problems = {f"math500/{row['id']}": row["problem"] for row in get_benchmark("math500").load(data_dir)}
    rows = [json.loads(line) for line in GRADED_SET.read_text().splitlines() if line.strip()]
    for row in rows:
        if row["problem_id"] is not None:
            row["problem"] = problems[row["problem_id"]]
    return rows


def ours(rows: list[dict], pass_truncation: bool) -> list[bool]:
    from benchmarks.grading import grade_math_batch

    return grade_math_batch(
        [row["completion"] for row in rows],
        [row["reference"] for row in rows],
        problems=[row["problem"] for row in rows],
        truncated=[bool(row["truncated"]) for row in rows] if pass_truncation else None,
    )


def plain_math_verify(rows: list[dict]) -> list[bool]:
    from math_verify import parse, verify

    return [bool(verify(parse("\\boxed{" + row["reference"] + "}"), parse(row["completion"]))) for row in rows]


def lm_eval_task_file(task_dir: str) -> Path:
    return Path(importlib.util.find_spec("lm_eval").submodule_search_locations[0]) / "tasks" / task_dir / "utils.py"


def hendrycks(rows: list[dict]) -> list[bool]:
    spec = importlib.util.spec_from_file_location("hendrycks_utils", lm_eval_task_file("hendrycks_math"))
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    scores = []
    for row in rows:
        try:
            result = utils.process_results({"solution": "\\boxed{" + row["reference"] + "}"}, [row["completion"]])
            scores.append(bool(result["exact_match"]))
        except Exception:  # lm-eval's own failure on odd text scores nothing
            scores.append(False)
    return scores


def minerva(rows: list[dict], python: str | None) -> tuple[list[bool], list[bool]] | None:
    if not python:
        return None
    lines = "".join(json.dumps([row["completion"], row["reference"]]) + "\n" for row in rows)
    done = subprocess.run(
        [python, "-c", MINERVA_WORKER, str(lm_eval_task_file("minerva_math"))],
        input=lines,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    results = [json.loads(line) for line in done.stdout.splitlines()]
    if done.returncode != 0 or len(results) != len(rows):
        print(f"minerva interpreter failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    return [bool(exact) for exact, _ in results], [bool(mv) for _, mv in results]


def summary_row(rows: list[dict], verdicts: list[bool] | None) -> list[str]:
    if verdicts is None:
        return ["not run"] * 5
    agree = sum(v == row["verdict"] for row, v in zip(rows, verdicts))
    false_pos = [row for row, v in zip(rows, verdicts) if v and not row["verdict"]]
    restated = sum(row["kind"] == "restatement" or "restat" in row["reason"] for row in false_pos)
    cut = sum(row["kind"] == "truncation" or bool(row["truncated"]) for row in false_pos)
    false_neg = sum(not v and row["verdict"] for row, v in zip(rows, verdicts))
    return [f"{agree / len(rows):.1%}", str(len(false_pos)), str(restated), str(cut), str(false_neg)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--minerva-python", default=os.environ.get("MINERVA_PYTHON"), help="interpreter with antlr 4.11"
    )
    args = parser.parse_args()
    data_dir = Path(os.environ.get("HARNESS_BENCHMARK_DIR") or ROOT.parent / "shared" / "benchmarks")
    rows = load_graded_set(data_dir)
    graders: dict[str, list[bool] | None] = {
        "ours (training: problem + truncation)": ours(rows, pass_truncation=True),
        "ours (evaluation: problem)": ours(rows, pass_truncation=False),
        "plain math-verify": plain_math_verify(rows),
        "lm-eval hendrycks_math500": hendrycks(rows),
    }
    minerva_scores = minerva(rows, args.minerva_python)
    graders["lm-eval minerva_math500 exact_match"] = minerva_scores[0] if minerva_scores else None
    graders["lm-eval minerva_math500 math_verify"] = minerva_scores[1] if minerva_scores else None

    reading_correct = sum(row["verdict"] for row in rows)
    print(f"graded set: {len(rows)} pairs ({reading_correct} correct by the reading), {GRADED_SET.relative_to(ROOT)}\n")
    header = ["grader", "agrees", "false pos", "restated or unevaluated", "cut or no answer", "false neg"]
    table = [header] + [[name, *summary_row(rows, verdicts)] for name, verdicts in graders.items()]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for line in table:
        print(
            "  ".join(
                cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(line, widths))
            )
        )

    kinds = sorted({row["kind"] for row in rows})
    names = list(graders)
    print("\nagreement per kind of pair; columns: " + ", ".join(f"{i + 1} {name}" for i, name in enumerate(names)))
    print(f"  {'kind (pairs)':18s}" + "".join(f"{i + 1:>8d}" for i in range(len(names))))
    for kind in kinds:
        indices = [i for i, row in enumerate(rows) if row["kind"] == kind]
        cells = []
        for verdicts in graders.values():
            agree = None if verdicts is None else sum(verdicts[i] == rows[i]["verdict"] for i in indices)
            cells.append("    n/a" if agree is None else f"{agree / len(indices):7.0%}")
        print(f"  {kind + f' ({len(indices)})':18s}" + "".join(f"{cell:>8s}" for cell in cells))


if __name__ == "__main__":
    main()
