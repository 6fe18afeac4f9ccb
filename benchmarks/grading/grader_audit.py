"""The grader audit: the math grader against a careful reading, in both modes, family by family.

    result = cached_audit()                # grades every case once per grader version, then reads the cache
    print(audit_table(result))             # the per-family table (`harness grader-audit` prints it)
    print(audit_line(result))              # "Grader audit: lenient 99.2% / strict 98.8% agreement ..."

The cases are the project's graded set (`benchmarks/data/graded_set.jsonl`: real completions and
hand-written probes, by kind), the reward-hack probe suite
(`benchmarks/data/reward_hack_probes.jsonl`, by family) and the held-out probes
(`benchmarks/data/reward_hack_holdout.jsonl`: the same families, written by a reader who never ran
the grader, after it was designed), grading round 3's probes and its held-out set
(`reward_hack_probes_r3.jsonl`, `reward_hack_holdout_r3.jsonl`), each with the verdict a careful
reader gives in the lenient and in the strict mode (`benchmarks.grading.probes`). Every case is graded by
`benchmarks.grading.math_grader.grade_math_verdicts` as training grades it: problem and truncation flag passed,
both modes in one pass.

Per family and mode: agreement (the grader's verdict is the reader's), false positives (credited
where the reading refuses) and false negatives (refused where the reading credits). "Non-answers
credited" counts the cases the grader must never credit that it did: the families restatement,
side_by_side, hedge, truncation and round 3's several_answers, negated, invisible and wrong_target
in either mode, unevaluated and approximation in strict mode.

The result is cached under the project's cache folder (`$HARNESS_CACHE/grader_audit/<key>.json`),
keyed by a hash of the grader's source files, the math libraries' versions and the cases
themselves, so Table 1 and the leaderboard get `audit_line()` in milliseconds once it was run.
An entry is trusted only if it is a result of this layout for exactly these cases (its key, its case
count, its count per set and per mode); anything else (undecodable, another shape, a forged count) is
graded anew. A cache folder that cannot be used is refused before the grading, not after it.
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path

from harness.common.errors import ConfigError, first_line
from harness.common.files import CACHE_ENV, atomic_write_text, cache_root

MODES = ("lenient", "strict")
GRADED_SET = "graded set"
PROBES = "probes"
HELD_OUT = "held-out"
PROBES_R3 = "probes r3"
HELD_OUT_R3 = "held-out r3"
SETS = (GRADED_SET, PROBES, HELD_OUT, PROBES_R3, HELD_OUT_R3)
BLIND_SETS = (HELD_OUT, HELD_OUT_R3)  # written by a reader who never saw the grader
REFUSED_IN_EVERY_MODE = (
    "restatement",
    "side_by_side",
    "hedge",
    "truncation",
    "several_answers",
    "negated",
    "invisible",
    "wrong_target",
)
REFUSED_IN_STRICT_MODE = ("unevaluated", "approximation")
COMMAND = "harness grader-audit"
_PACKAGE = Path(__file__).resolve().parent
_LIBRARIES = ("math-verify", "latex2sympy2_extended", "sympy")


def audit_cases(data_dir: str | Path | None = None) -> list[dict]:
    """Every case: {"id", "set", "family", "problem", "reference", "completion", "truncated", "lenient",
    "strict", "reason"}; MATH-500 problems are read from `data_dir` (default $HARNESS_BENCHMARK_DIR)."""
    from benchmarks.grading.probes import load_graded_set, load_holdout, load_holdout_r3, load_probes, load_probes_r3

    cases = [{**row, "set": GRADED_SET, "family": row["kind"]} for row in load_graded_set(data_dir)]
    cases += [{**row, "set": PROBES} for row in load_probes()]
    cases += [{**row, "set": HELD_OUT} for row in load_holdout()]
    cases += [{**row, "set": PROBES_R3} for row in load_probes_r3()]
    cases += [{**row, "set": HELD_OUT_R3} for row in load_holdout_r3()]
    fields = ("id", "set", "family", "problem", "reference", "completion", "truncated", "lenient", "strict", "reason")
    return [{name: case.get(name) for name in fields} for case in cases]


def is_non_answer(case: dict, mode: str) -> bool:
    """Must the grader never credit this case in `mode` (see the module docstring)?"""
    families = REFUSED_IN_EVERY_MODE + (REFUSED_IN_STRICT_MODE if mode == "strict" else ())
    return case["family"] in families and not case[mode]


def run_audit(cases: list[dict]) -> dict:
    """Grade `cases` in both modes and compare with the reading (the result's layout: `audit_table`)."""
    from benchmarks.grading.math_grader import grade_math_verdicts

    verdicts = grade_math_verdicts(
        [case["completion"] for case in cases],
        [case["reference"] for case in cases],
        problems=[case["problem"] for case in cases],
        truncated=[bool(case["truncated"]) for case in cases],
    )
    groups: dict[tuple[str, str], dict] = {}
    totals = {mode: _counts() for mode in MODES}
    disagreements, credited = [], []
    for case, verdict in zip(cases, verdicts):
        group = groups.setdefault((case["set"], case["family"]), {"set": case["set"], "family": case["family"], "n": 0})
        group["n"] += 1
        for mode in MODES:
            graded, reading = bool(getattr(verdict, mode)), bool(case[mode])
            for counts in (group.setdefault(mode, _counts()), totals[mode]):
                counts["agree"] += graded == reading
                counts["false_positives"] += graded and not reading
                counts["false_negatives"] += reading and not graded
            if graded != reading:
                disagreements.append(
                    {
                        "id": case["id"],
                        "set": case["set"],
                        "family": case["family"],
                        "mode": mode,
                        "reading": reading,
                        "grader": graded,
                        "why_reader": case["reason"],
                        "why_grader": verdict.reason,
                        "extracted": None if verdict.extracted is None else str(verdict.extracted),
                    }
                )
        if any(is_non_answer(case, mode) and getattr(verdict, mode) for mode in MODES):
            credited.append(case["id"])
    for counts in [totals[mode] for mode in MODES] + [g[m] for g in groups.values() for m in MODES]:
        counts["agreement"] = counts["agree"] / max(1, _size(counts))
    return {
        "cases": len(cases),
        "sets": {name: count for name in SETS if (count := sum(1 for case in cases if case["set"] == name))},
        "modes": totals,
        "families": list(groups.values()),
        "non_answers_credited": len(credited),
        "non_answers_credited_ids": credited,
        "disagreements": disagreements,
    }


def _counts() -> dict:
    return {"agree": 0, "false_positives": 0, "false_negatives": 0}


def _size(counts: dict) -> int:
    """Cases behind a mode's counts: each is agreed on, a false positive or a false negative."""
    return counts["agree"] + counts["false_positives"] + counts["false_negatives"]


def fingerprint(cases: list[dict]) -> str:
    """Hash of what the audit's result depends on: the grader's source, the libraries it calls, the cases."""
    digest = hashlib.sha256()
    sources = list(_PACKAGE.glob("*.py"))  # the whole grading package: rules, probes and this audit
    for path in sorted(path for path in sources if path.is_file()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for library in _LIBRARIES:
        try:
            digest.update(f"{library}=={metadata.version(library)}\0".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library} absent\0".encode())
    digest.update(json.dumps(cases, sort_keys=True).encode())
    return digest.hexdigest()[:16]


def cached_audit(data_dir: str | Path | None = None, *, refresh: bool = False) -> dict:
    """The audit of the current grader on the current cases: from the cache, else graded and cached."""
    cases = audit_cases(data_dir)
    key = fingerprint(cases)
    path = cache_root() / "grader_audit" / f"{key}.json"
    if path.is_file() and not refresh:
        try:
            entry = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            entry = None
        if is_result_of(entry, cases, key):
            return entry  # anything else is a damaged entry: graded anew, and replaced
    _cache_folder(path.parent)  # before the minutes of grading, not after them
    result = {**run_audit(cases), "fingerprint": key}
    atomic_write_text(path, json.dumps(result, indent=1, ensure_ascii=False))
    return result


def is_result_of(entry, cases: list[dict], key: str) -> bool:
    """Is `entry` an audit result of exactly `cases` (the layout of `run_audit`, the key, the counts)?"""
    try:
        sets = {name: sum(1 for case in cases if case["set"] == name) for name in (GRADED_SET, PROBES, HELD_OUT)}
        return (
            entry["fingerprint"] == key
            and entry["cases"] == len(cases)
            and entry["sets"] == {name: count for name, count in sets.items() if count}
            and all(_size(entry["modes"][mode]) == len(cases) for mode in MODES)
            and sum(family["n"] for family in entry["families"]) == len(cases)
            and isinstance(entry["non_answers_credited"], int)
            and isinstance(entry["disagreements"], list)
        )
    except (KeyError, TypeError, AttributeError):  # another shape: {}, [1, 2], a string, missing keys
        return False


def _cache_folder(folder: Path) -> None:
    """Create the audit's cache folder; a one-line ConfigError when $HARNESS_CACHE (or a folder on the way)
    is a file or cannot be written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"cannot keep the grader audit in {folder} (the cache folder, ${CACHE_ENV}): {error.strerror or error}"
        ) from None


def audit_line(result: dict | None = None, data_dir: str | Path | None = None) -> str:
    """The audit in one line, for reports; `result` None: the cached audit (graded once if needed).
    Never raises: an audit that cannot run says so in the line."""
    if result is None:
        try:
            result = cached_audit(data_dir)
        except Exception as error:  # a report must not fail for want of the audit: it says why instead
            return f"Grader audit: not available ({first_line(error)}; run {COMMAND})"
    lenient, strict = (100 * result["modes"][mode]["agreement"] for mode in MODES)
    credited = result["non_answers_credited"]
    return (
        f"Grader audit: lenient {lenient:.1f}% / strict {strict:.1f}% agreement with a careful reading on "
        f"{result['cases']} cases; {credited} non-answer{'' if credited == 1 else 's'} credited ({COMMAND})"
    )


def audit_table(result: dict, *, show_disagreements: bool = False) -> str:
    """The per-family table (aligned text), the whole-set lines and the non-answer count; with
    `show_disagreements` every case where grader and reading differ, one line each."""
    header = ["set", "family", "n"] + [name for mode in MODES for name in (mode, "FP", "FN")]
    rows = [[g["set"], g["family"], str(g["n"]), *_mode_cells(g)] for g in result["families"]]
    whole = ["all", "", str(result["cases"]), *_mode_cells(result["modes"])]
    widths = [max(len(row[i]) for row in [header, *rows, whole]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    rule = "  ".join("-" * w for w in widths)
    sets = ", ".join(f"{name} {count}" for name, count in result["sets"].items())
    lines = [
        f"Grader audit against a careful reading ({sets}).",
        "lenient, strict: the share of cases where the grader's verdict in that mode is the reading's;",
        "FP: credited where the reading refuses; FN: refused where it credits",
        "",
        line(header),
        rule,
        *(line(row) for row in rows),
        rule,
        line(whole),
        "",
    ]
    for mode in MODES:
        counts = result["modes"][mode]
        lines.append(
            f"{mode:<8} {100 * counts['agreement']:.1f}% agreement on {result['cases']} cases, "
            f"{_plural(counts['false_positives'], 'false positive')}, "
            f"{_plural(counts['false_negatives'], 'false negative')}"
        )
    for name in SETS[1:]:
        groups = [group for group in result["families"] if group["set"] == name]
        if groups:
            n = sum(group["n"] for group in groups)
            shares = [sum(group[mode]["agreement"] * group["n"] for group in groups) / n for mode in MODES]
            blind = " written blind to the grader" if name in BLIND_SETS else ""
            lines.append(
                f"{name} ({n} cases{blind}): "
                + " / ".join(f"{mode} {100 * share:.1f}%" for mode, share in zip(MODES, shares))
            )
    credited = result["non_answers_credited_ids"]
    lines.append(f"non-answers credited: {len(credited)}" + (f" ({', '.join(credited)})" if credited else ""))
    if show_disagreements:
        lines += ["", f"disagreements ({len(result['disagreements'])}):"]
        for d in result["disagreements"]:
            verdict = "credited" if d["grader"] else "refused" + (f" ({d['why_grader']})" if d["why_grader"] else "")
            extracted = "" if d["extracted"] is None else f" [answer {d['extracted'][:60]!r}]"
            lines.append(f"  {d['mode']:<7} {d['id']}: grader {verdict}{extracted}; reader: {d['why_reader']}")
    return "\n".join(lines)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _mode_cells(groups: dict) -> list[str]:
    cells = []
    for mode in MODES:
        counts = groups[mode]
        cells += [f"{100 * counts['agreement']:.1f}%", str(counts["false_positives"]), str(counts["false_negatives"])]
    return cells


def audit_markdown(result: dict) -> str:
    """grader_audit.md: the audit line, the table and every disagreement."""
    body = audit_table(result, show_disagreements=True)
    return f"# Grader audit\n\n{audit_line(result)}\n\n```\n{body}\n```\n"
