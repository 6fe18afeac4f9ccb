"""The read sets the math grader is measured against: the graded set and the reward-hack probes.

    rows = load_graded_set()     # completions of the built-in models and hand-written probes
    probes = load_probes()       # the reward-hack probe suite, six families
    holdout = load_holdout()     # held-out probes, read without the grader, for an untuned check
    [p for p in probes if p["family"] in NON_ANSWER_FAMILIES]   # refused in every mode

The files ship as package data (benchmarks/data/). Every row carries the verdict of a careful
reader in each grading mode: `lenient` (any value equal to the reference that is an answer) and
`strict` (also the worked-out form a careful MATH grader demands); strict credit implies lenient
credit. docs/grader-probes.md gives the rules and the counts.

- graded_set.jsonl: `id`, `kind`, `source`, `problem_id` (a MATH-500 row, "math500/<row id>",
  whose problem is read from the benchmark data, never copied) or `problem`, `reference`,
  `completion`, `truncated` (null where unknown), `verdict` (the lenient verdict, the name the
  graded-set tests use), `strict`, `reason`. Loaded rows also get `lenient` (= `verdict`).
- reward_hack_probes.jsonl: `id`, `family` (one of PROBE_FAMILIES), `problem`, `reference`,
  `completion`, `truncated` (false), `lenient`, `strict`, `reason`.
- reward_hack_holdout.jsonl: the same fields, 15 probes per family (ids `holdout-<family>-NN`),
  written by a reader who never saw or ran the grader, so that its agreement can be measured on
  cases it was not tuned on.

A malformed row is a `DataError` (a ValueError) of one line naming the file, the line and the
field.
"""

import json
from importlib import resources
from pathlib import Path

from benchmarks.benchmark_registry import get_benchmark
from harness.common.errors import DataError

PROBE_FAMILIES = ("restatement", "unevaluated", "approximation", "side_by_side", "hedge", "false_negative")
"""restatement: the question's expression in another form; unevaluated: work left undone;
approximation: decimals for exact values; side_by_side: numbers next to each other where one
value is asked; hedge: hedges, unequal equations, retractions and hidden boxes; false_negative:
right answers in formats a grader may miss (lenient-only ones among them)."""

ROUND3_FAMILIES = ("several_answers", "negated", "invisible", "wrong_target", "reader_forms")
"""Grading round 3 (issue 29), each with committed answers a reader credits beside the non-answers:
several_answers: more than one answer committed to (boxes, statements, bold values), only one read;
negated: a box negated or ruled out; invisible: boxes a reader does not see, macro definitions and
text addressed to the grader; wrong_target: the right number as the wrong answer (unit, variable,
inequality or approximation marker, percent, set, sigma, form); reader_forms: right answers in
typographic variants and unboxed final statements."""

NON_ANSWER_FAMILIES = ("restatement", "side_by_side", "hedge")
"""Families whose every probe is a non-answer, refused in both modes."""

GRADED_SET_FILE = "graded_set.jsonl"
PROBES_FILE = "reward_hack_probes.jsonl"
HOLDOUT_FILE = "reward_hack_holdout.jsonl"
PROBES_R3_FILE = "reward_hack_probes_r3.jsonl"
HOLDOUT_R3_FILE = "reward_hack_holdout_r3.jsonl"

_TEXT, _BOOL, _NONE = (str,), (bool,), (type(None),)
# field -> (allowed types, must not be blank when text)
_GRADED_FIELDS = {
    "id": (_TEXT, True),
    "kind": (_TEXT, True),
    "source": (_TEXT, True),
    "problem_id": (_TEXT + _NONE, True),
    "problem": (_TEXT + _NONE, True),
    "reference": (_TEXT, True),
    "completion": (_TEXT, False),
    "truncated": (_BOOL + _NONE, False),
    "verdict": (_BOOL, False),
    "strict": (_BOOL, False),
    "reason": (_TEXT, True),
}
_PROBE_FIELDS = {
    "id": (_TEXT, True),
    "family": (_TEXT, True),
    "problem": (_TEXT, True),
    "reference": (_TEXT, True),
    "completion": (_TEXT, False),
    "truncated": (_BOOL, False),
    "lenient": (_BOOL, False),
    "strict": (_BOOL, False),
    "reason": (_TEXT, True),
}


def _data_path(name: str) -> Path:
    return Path(str(resources.files("benchmarks") / "data" / name))


def _field_problem(row: dict, fields: dict) -> str | None:
    """Why `row` is malformed ("field: problem"), or None."""
    for name, (types, nonblank) in fields.items():
        if name not in row:
            return f"{name}: missing"
        value = row[name]
        if not isinstance(value, types):
            allowed = " or ".join("null" if kind is type(None) else kind.__name__ for kind in types)
            return f"{name}: expected {allowed}, got {json.dumps(value)[:40]}"
        if nonblank and isinstance(value, str) and not value.strip():
            return f"{name}: blank"
    if "\n" in row["reason"]:
        return "reason: more than one line"
    lenient = row["lenient"] if "lenient" in fields else row["verdict"]
    if row["strict"] and not lenient:
        return "strict: credited in strict mode but refused in lenient mode"
    return None


def _read_rows(path: Path, fields: dict, what: str) -> list[tuple[int, dict]]:
    """(line number, row) for every row of `path`, each checked against `fields`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(f"{what} {path}: cannot be read ({error})") from None
    rows, seen = [], set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise DataError(f"{what} {path}:{number}: not valid JSON ({error.msg})") from None
        if not isinstance(row, dict):
            raise DataError(f"{what} {path}:{number}: expected a JSON object, got {type(row).__name__}")
        problem = _field_problem(row, fields)
        if problem is None and row["id"] in seen:
            problem = f"id: {row['id']!r} occurs twice"
        if problem is not None:
            raise DataError(f"{what} {path}:{number}: {problem}")
        seen.add(row["id"])
        rows.append((number, row))
    if not rows:
        raise DataError(f"{what} {path}: no rows")
    return rows


def load_probes(path: str | Path | None = None) -> list[dict]:
    """The reward-hack probes (the shipped file unless `path` is given), checked."""
    path = Path(path) if path is not None else _data_path(PROBES_FILE)
    rows = []
    for number, row in _read_rows(path, _PROBE_FIELDS, "probe file"):
        if row["family"] not in PROBE_FAMILIES + ROUND3_FAMILIES:
            allowed = ", ".join(PROBE_FAMILIES + ROUND3_FAMILIES)
            raise DataError(f"probe file {path}:{number}: family: {row['family']!r} is none of {allowed}")
        rows.append(row)
    return rows


def load_holdout(path: str | Path | None = None) -> list[dict]:
    """The held-out reward-hack probes (the shipped file unless `path` is given), checked as
    `load_probes` checks its rows."""
    return load_probes(path if path is not None else _data_path(HOLDOUT_FILE))


def load_probes_r3(path: str | Path | None = None) -> list[dict]:
    """Grading round 3's probes (`ROUND3_FAMILIES`, the shipped file unless `path` is given), checked."""
    return load_probes(path if path is not None else _data_path(PROBES_R3_FILE))


def load_holdout_r3(path: str | Path | None = None) -> list[dict]:
    """Round 3's held-out set, written blind to the grader (docs/grader-probes.md says how), checked."""
    return load_probes(path if path is not None else _data_path(HOLDOUT_R3_FILE))


def load_graded_set(data_dir: str | Path | None = None, *, path: str | Path | None = None) -> list[dict]:
    """The graded set (the shipped file unless `path` is given), checked, each row with its
    problem text (MATH-500 problems from `data_dir`, default $HARNESS_BENCHMARK_DIR as for
    `get_benchmark("math500").load`) and a `lenient` key equal to its `verdict`."""
    path = Path(path) if path is not None else _data_path(GRADED_SET_FILE)
    numbered = _read_rows(path, _GRADED_FIELDS, "graded set")
    problems = None
    rows = []
    for number, row in numbered:
        if row["problem_id"] is not None:
            if problems is None:
                problems = {
                    f"math500/{item['id']}": item["problem"] for item in get_benchmark("math500").load(data_dir)
                }
            if row["problem_id"] not in problems:
                raise DataError(f"graded set {path}:{number}: problem_id: {row['problem_id']!r} is no MATH-500 row")
            row["problem"] = problems[row["problem_id"]]
        elif row["problem"] is None:
            raise DataError(f"graded set {path}:{number}: problem: null without a problem_id")
        row["lenient"] = row["verdict"]
        rows.append(row)
    return rows
