"""The grading worker processes (`benchmarks.grading.grading_worker`): the JSON-line protocol, the pool, the
hard kill on overrun, and the one-way imports (grading -> worker -> math_check)."""

import ast
import json
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.grading import grading_worker as math_grading_worker
from benchmarks.grading.grading_worker import check_in_subprocess

ROOT = Path(__file__).resolve().parents[3]


def test_protocol_by_hand():
    lines = [["\\boxed{\\frac12}", "0.5", 5.0], [None, "5", 5.0], ["\\boxed{2}", None, 5.0]]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.grading.grading_worker"],
        input="".join(json.dumps(line) + "\n" for line in lines),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.splitlines() == [
        "ready",
        '[true, true, "\\\\frac12", null]',
        "[false, false, null, null]",
        '[false, false, "2", null]',
    ]


def test_pool_grades_in_order():
    pairs = [("\\boxed{\\frac12}", "0.5"), ("\\boxed{\\sqrt{2}}", "2"), ("\\boxed{x^2}", "x \\cdot x")]
    assert check_in_subprocess(pairs, 5.0) == [
        (True, True, "\\frac12", None),
        (False, False, "\\sqrt{2}", None),
        (True, True, "x^2", None),
    ]
    assert check_in_subprocess(pairs, 5.0) == [
        (True, True, "\\frac12", None),
        (False, False, "\\sqrt{2}", None),
        (True, True, "x^2", None),
    ]


def test_an_overrunning_worker_is_killed_and_replaced(monkeypatch):
    # A negative grace period makes the caller give up before the worker's own timer fires.
    monkeypatch.setattr(math_grading_worker, "_GRACE_S", -0.5)
    started = time.monotonic()
    slow = ("\\boxed{3^{100000000}}", "3^{100000000} + 1")  # reaches sympy, which takes far longer
    graded = check_in_subprocess([slow, ("\\boxed{\\frac12}", "0.5")], 1.0)
    assert graded == [(False, False, "3^{100000000}", "timed out"), (True, True, "\\frac12", None)]
    assert time.monotonic() - started < 10  # 0.5 s before the kill, then a fresh worker starts


def project_imports(name: str) -> set[str]:
    """The project modules that benchmarks/grading/<name> imports, at the top or inside functions."""
    names = set()
    for node in ast.walk(ast.parse((ROOT / "benchmarks" / "grading" / name).read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
    return {name for name in names if name.startswith("benchmarks")}


def test_imports_point_one_way():
    checking = {"benchmarks.grading.math_answer", "benchmarks.grading.math_boxes", "benchmarks.grading.math_deadline"}
    checking |= {"benchmarks.grading.math_extracted", "benchmarks.grading.math_form", "benchmarks.grading.math_verdict"}
    checking |= {"benchmarks.grading.math_full_check"}
    full_check = {"benchmarks.grading.math_form", "benchmarks.grading.math_nonanswer", "benchmarks.grading.math_normal"}
    full_check |= {"benchmarks.grading.math_strict", "benchmarks.grading.math_values", "benchmarks.grading.math_asked"}
    full_check |= {"benchmarks.grading.math_scope", "benchmarks.grading.math_extracted"}
    full_check |= {"benchmarks.grading.math_verdict", "benchmarks.grading.math_conventions"}
    assert project_imports("math_hidden.py") == {
        "benchmarks.grading.math_address",
        "benchmarks.grading.math_tex_conditionals",
    }
    assert project_imports("math_address.py") == {"benchmarks.grading.math_foreign"}
    assert project_imports("math_retraction.py") == set() and project_imports("math_tex_conditionals.py") == set()
    assert project_imports("math_extracted.py") == set() and project_imports("math_deadline.py") == set()
    assert project_imports("math_verdict.py") == {"benchmarks.grading.math_extracted"}
    assert project_imports("math_form.py") == set() and project_imports("math_foreign.py") == set()
    assert project_imports("math_normal.py") == {
        "benchmarks.grading.math_glyphs",
        "benchmarks.grading.math_conventions",
    }
    assert project_imports("math_conventions.py") == set()
    assert project_imports("math_ending.py") == {"benchmarks.grading.math_retraction"}
    assert project_imports("math_scope.py") == set() and project_imports("math_glyphs.py") == set()
    assert project_imports("math_final.py") == {
        "benchmarks.grading.math_asked",
        "benchmarks.grading.math_glyphs",
        "benchmarks.grading.math_result",
        "benchmarks.grading.math_scope",
    }
    assert project_imports("math_result.py") == {"benchmarks.grading.math_glyphs"}
    assert project_imports("math_commit.py") == {
        "benchmarks.grading.math_address",
        "benchmarks.grading.math_asked",
        "benchmarks.grading.math_final",
        "benchmarks.grading.math_scope",
    }
    assert project_imports("math_asked.py") == {"benchmarks.grading.math_equation_form"}
    assert project_imports("math_equation_form.py") == set()
    assert project_imports("math_conclusion.py") == {"benchmarks.grading.math_final"}
    assert project_imports("math_boxes.py") == {"benchmarks.grading.math_commit", "benchmarks.grading.math_extracted"}
    assert project_imports("math_unboxed.py") == {
        "benchmarks.grading.math_asked",
        "benchmarks.grading.math_boxes",
        "benchmarks.grading.math_conclusion",
        "benchmarks.grading.math_extracted",
        "benchmarks.grading.math_final",
        "benchmarks.grading.math_result",
        "benchmarks.grading.math_retraction",
        "benchmarks.grading.math_scope",
    }
    assert project_imports("math_answer.py") == {
        "benchmarks.grading.math_address",
        "benchmarks.grading.math_boxes",
        "benchmarks.grading.math_commit",
        "benchmarks.grading.math_extracted",
        "benchmarks.grading.math_glyphs",
        "benchmarks.grading.math_hidden",
        "benchmarks.grading.math_retraction",
        "benchmarks.grading.math_scope",
        "benchmarks.grading.math_unboxed",
        "benchmarks.grading.math_ending",
    }
    assert project_imports("math_nonanswer.py") == {"benchmarks.grading.math_form"}
    assert project_imports("math_strict.py") == {"benchmarks.grading.math_form", "benchmarks.grading.math_nonanswer"}
    assert project_imports("math_values.py") == {
        "benchmarks.grading.math_form",
        "benchmarks.grading.math_nonanswer",
        "benchmarks.grading.math_normal",
    }
    assert project_imports("math_full_check.py") == full_check
    assert project_imports("math_check.py") == checking
    assert project_imports("grading_worker.py") == {"benchmarks.grading.math_check"}
    assert project_imports("math_grader.py") == {"benchmarks.grading.math_check", "benchmarks.grading.grading_worker"}
