"""The leaderboard's significance groups: what each row's runs scored, problem by problem, and the groups.

A leaderboard row is one algorithm and its hyper-parameters; its runs are its seeds (the run param
`run.seed`). What a row is compared on is what its Avg is made of:

- rows whose runs were evaluated on a suite: the per-problem scores of the evaluations
  (eval/samples.jsonl, the mean of each problem's k samples, as Table 1 reads them), compared on the
  unweighted mean over the suite's benchmarks; rows sharing seeds and problems are paired;
- rows known only by their greedy held-out accuracy after RL (sweep trials, plain training runs): that
  accuracy per seed on `task.heldout_size` problems, through `groups.bernoulli_scores`, always unpaired
  (no per-problem answers are kept).

Rows are grouped within each kind (several suites, or suite and held-out rows, are never compared with
each other); when a leaderboard holds several kinds, a group names its kind ("held-out · 2"). A row with
neither is not grouped ("–").
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path

from harness.reports.stats.accuracy import RowScores
from harness.reports.stats.groups import GroupColumns, bernoulli_scores, group_columns, merge

HELDOUT = "held-out"


def is_finite(value: float) -> bool:
    """As the leaderboard's: NaN, inf and the largest float (MLflow's SQL stores write inf as it) are not."""
    return math.isfinite(value) and abs(value) < sys.float_info.max


def _download(client, run_id: str, path: str, folder: Path):
    local = Path(client.download_artifacts(run_id, path, str(folder)))
    if path.endswith(".jsonl"):
        return [json.loads(line) for line in local.read_text().splitlines() if line.strip()]
    return json.loads(local.read_text())


def _seed(run, index: int) -> int:
    try:
        return int(run.data.params.get("run.seed", index))
    except ValueError:
        return index


def evaluation_scores(client, evaluation_run) -> dict[str, dict[str, float]]:
    """benchmark -> problem id -> score of one evaluation run ({} when its files are missing or unreadable)."""
    from harness.reports.table1.build import per_problem_scores

    with tempfile.TemporaryDirectory() as tmp:
        try:
            results = _download(client, evaluation_run.info.run_id, "eval/results.json", Path(tmp) / "r")
            samples = _download(client, evaluation_run.info.run_id, "eval/samples.jsonl", Path(tmp) / "s")
        except Exception:  # an evaluation logged without its files (an older harness): its row stays ungrouped
            return {}
    scores = per_problem_scores(results, samples)
    return {b: {p: v for p, v in problems.items() if is_finite(v)} for b, problems in scores.items()}


def row_scores(client, label: str, members: list, evaluation_runs: dict) -> tuple[tuple[str, ...], RowScores]:
    """(the kind: the suite's benchmarks or (HELDOUT,), the row's scores); ((), {}) with nothing to compare."""
    suite: RowScores = {}
    for index, run in enumerate(members):
        evaluation = evaluation_runs.get(run.info.run_id)
        if evaluation is None:
            continue
        for bench, problems in evaluation_scores(client, evaluation).items():
            if problems:
                suite.setdefault(bench, {})[_seed(run, index)] = problems
    if suite:
        return tuple(sorted(suite)), suite
    accuracy = {
        _seed(run, i): run.data.metrics["heldout_after_greedy_accuracy"]
        for i, run in enumerate(members)
        if is_finite(run.data.metrics.get("heldout_after_greedy_accuracy", float("nan")))
    }
    try:
        problems = int(members[0].data.params.get("task.heldout_size", 0)) if members else 0
    except ValueError:
        problems = 0
    scores = bernoulli_scores(label, accuracy, problems)
    return ((HELDOUT,), {HELDOUT: scores}) if scores else ((), {})


def leaderboard_groups(client, ranked: list[str], members: dict[str, list], evaluation_runs: dict) -> GroupColumns:
    """The group column of the ranked rows (labels best first): groups within each kind of row."""
    kinds: dict[tuple[str, ...], dict[str, RowScores]] = {}
    for label in ranked:
        kind, scores = row_scores(client, label, members[label], evaluation_runs)
        if kind:
            kinds.setdefault(kind, {})[label] = scores
    first = next((k for label in ranked for k, rows in kinds.items() if label in rows), None)
    parts = []
    for kind, rows in kinds.items():
        prefix = "" if len(kinds) == 1 or kind == first else f"{' + '.join(kind)} · "
        parts.append(group_columns(rows, list(kind), prefix))
    return merge(parts)
