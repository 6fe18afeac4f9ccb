"""The read sets through every math grader at hand, side by side: agreement with a careful reading.

Run: ``python tests/perf/bench_grader_agreement.py [--minerva-python PATH]`` (reads
$HARNESS_BENCHMARK_DIR, else ../shared/benchmarks, for the MATH-500 problems the graded set names).

The rows: the graded set, the reward-hack probes and, where shipped, the held-out probes
(`benchmarks.grading.probes`), each with a careful reading in both grading modes. Graders, each on the same
(completion, reference) pairs, each compared with the reading of the mode its policy follows
(lenient: any equal value; strict: the worked-out form), and plain math-verify with both:
- ours, lenient and strict, as training calls them (problem and truncation passed);
- plain math-verify: ``verify(parse("\\boxed{reference}"), parse(completion))``, default settings;
- lm-eval ``hendrycks_math500``: its ``process_results`` (the text between the first and last ``$``,
  string-normalised, against the reference): a strict, string-equality policy;
- lm-eval ``minerva_math500``: its ``process_results``, both metrics (``exact_match``: the "Final
  Answer: The final answer is X. I hope it is correct." pattern, compared with sympy's
  ``parse_latex``; ``math_verify``). That code needs antlr4-python3-runtime 4.11, which the project's
  environment cannot have (math-verify pins 4.13.2), so it runs in a separate interpreter given by
  --minerva-python (default $MINERVA_PYTHON), made with::

      python -m venv /tmp/minerva-env
      /tmp/minerva-env/bin/pip install "antlr4-python3-runtime==4.11.*" sympy
      /tmp/minerva-env/bin/pip install --no-deps math-verify latex2sympy2_extended

  Without one the minerva rows read "not run".

Prints, per grader: agreement with the reading, false positives, the non-answers among them
(restatements, numbers side by side, hedges: credited by no careful reader) and false negatives;
then agreement per family or kind of pair.
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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


def load_rows(data_dir: Path) -> list[dict]:
    """Graded set, probes and held-out probes, each row with `family`, `lenient` and `strict`."""
    from benchmarks.grading import probes

    rows = [dict(row, family=row["kind"]) for row in probes.load_graded_set(data_dir)]
    rows += probes.load_probes()
    if hasattr(probes, "load_holdout"):
        rows += [dict(row, family="holdout " + row["family"]) for row in probes.load_holdout()]
    return rows


def ours(rows: list[dict], strict: bool) -> list[bool]:
    from benchmarks.grading.math_grader import grade_math_verdicts

    verdicts = grade_math_verdicts(
        [row["completion"] for row in rows],
        [row["reference"] for row in rows],
        problems=[row["problem"] for row in rows],
        truncated=[bool(row["truncated"]) for row in rows],
    )
    return [verdict.strict if strict else verdict.lenient for verdict in verdicts]


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


NON_ANSWERS = ("restatement", "side_by_side", "hedge", "holdout restatement", "holdout side_by_side", "holdout hedge")


def summary_row(rows: list[dict], verdicts: list[bool] | None, mode: str) -> list[str]:
    if verdicts is None:
        return [mode, *["not run"] * 4]
    agree = sum(v == row[mode] for row, v in zip(rows, verdicts))
    false_pos = [row for row, v in zip(rows, verdicts) if v and not row[mode]]
    non_answers = sum(row["family"] in NON_ANSWERS or "restat" in row["reason"] for row in false_pos)
    false_neg = sum(not v and row[mode] for row, v in zip(rows, verdicts))
    return [mode, f"{agree / len(rows):.1%}", str(len(false_pos)), str(non_answers), str(false_neg)]


def print_table(table: list[list[str]]) -> None:
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    for line in table:
        cells = (cell.ljust(width) if i < 2 else cell.rjust(width) for i, (cell, width) in enumerate(zip(line, widths)))
        print("  ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--minerva-python", default=os.environ.get("MINERVA_PYTHON"), help="interpreter with antlr 4.11"
    )
    args = parser.parse_args()
    data_dir = Path(os.environ.get("HARNESS_BENCHMARK_DIR") or ROOT.parent / "shared" / "benchmarks")
    rows = load_rows(data_dir)
    minerva_scores = minerva(rows, args.minerva_python)
    plain = plain_math_verify(rows)
    graders: list[tuple[str, list[bool] | None, str]] = [
        ("ours, lenient", ours(rows, strict=False), "lenient"),
        ("ours, strict", ours(rows, strict=True), "strict"),
        ("plain math-verify", plain, "lenient"),
        ("plain math-verify", plain, "strict"),
        ("lm-eval hendrycks_math500", hendrycks(rows), "strict"),
        ("lm-eval minerva_math500 exact_match", minerva_scores[0] if minerva_scores else None, "strict"),
        ("lm-eval minerva_math500 math_verify", minerva_scores[1] if minerva_scores else None, "lenient"),
    ]
    print(f"{len(rows)} read pairs: graded set, reward-hack probes, held-out probes where shipped\n")
    header = ["grader", "reading", "agrees", "false pos", "non-answers credited", "false neg"]
    print_table([header] + [[name, *summary_row(rows, verdicts, mode)] for name, verdicts, mode in graders])

    families = list(dict.fromkeys(row["family"] for row in rows))
    print(
        "\nagreement per family or kind; columns: "
        + ", ".join(f"{i + 1} {g[0]} vs {g[2]}" for i, g in enumerate(graders))
    )
    print(f"  {'family (pairs)':28s}" + "".join(f"{i + 1:>7d}" for i in range(len(graders))))
    for family in families:
        indices = [i for i, row in enumerate(rows) if row["family"] == family]
        cells = []
        for _, verdicts, mode in graders:
            agree = None if verdicts is None else sum(verdicts[i] == rows[i][mode] for i in indices)
            cells.append("n/a" if agree is None else f"{agree / len(indices):.0%}")
        print(f"  {family + f' ({len(indices)})':28s}" + "".join(f"{cell:>7s}" for cell in cells))


if __name__ == "__main__":
    main()
