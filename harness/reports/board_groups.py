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

A per-problem score that is NaN or infinite is left out of the comparison and counted under the table; a
row whose evaluations hold no finite score at all is not grouped and is named there. It never falls back
to its held-out accuracy: that would move it silently into another comparison (and make it a leader).
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


def evaluation_scores(client, evaluation_run) -> tuple[dict[str, dict[str, float]], int]:
    """(benchmark -> problem id -> finite score of one evaluation run, how many scores were NaN or inf);
    ({}, 0) when its files are missing or unreadable."""
    from harness.reports.table1.build import per_problem_scores

    with tempfile.TemporaryDirectory() as tmp:
        try:
            results = _download(client, evaluation_run.info.run_id, "eval/results.json", Path(tmp) / "r")
            samples = _download(client, evaluation_run.info.run_id, "eval/samples.jsonl", Path(tmp) / "s")
        except Exception:  # an evaluation logged without its files (an older harness): its row stays ungrouped
            return {}, 0
    scores = per_problem_scores(results, samples)
    left_out = sum(not is_finite(v) for problems in scores.values() for v in problems.values())
    return {b: {p: v for p, v in problems.items() if is_finite(v)} for b, problems in scores.items()}, left_out


def row_scores(
    client, label: str, members: list, evaluation_runs: dict
) -> tuple[tuple[str, ...], RowScores, int | None]:
    """(the kind: the suite's benchmarks or (HELDOUT,), the row's scores, how many per-problem scores were
    non-finite: None when the row has no evaluation); ((), {}, n) with nothing to compare."""
    suite: RowScores = {}
    left_out = None
    for index, run in enumerate(members):
        evaluation = evaluation_runs.get(run.info.run_id)
        if evaluation is None:
            continue
        scores, non_finite = evaluation_scores(client, evaluation)
        left_out = (left_out or 0) + non_finite
        for bench, problems in scores.items():
            if problems:
                suite.setdefault(bench, {})[_seed(run, index)] = problems
    if suite:
        return tuple(sorted(suite)), suite, left_out
    if left_out:  # evaluated, but every score non-finite: said under the table, not compared on held-out instead
        return (), {}, left_out
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
    return ((HELDOUT,), {HELDOUT: scores}, left_out) if scores else ((), {}, left_out)


def leaderboard_groups(client, ranked: list[str], members: dict[str, list], evaluation_runs: dict) -> GroupColumns:
    """The group column of the ranked rows (labels best first): groups within each kind of row."""
    kinds: dict[tuple[str, ...], dict[str, RowScores]] = {}
    left_out, unscored = 0, []
    for label in ranked:
        kind, scores, non_finite = row_scores(client, label, members[label], evaluation_runs)
        left_out += non_finite or 0
        if kind:
            kinds.setdefault(kind, {})[label] = scores
        elif non_finite:
            unscored.append(label)
    first = next((k for label in ranked for k, rows in kinds.items() if label in rows), None)
    parts = []
    for kind, rows in kinds.items():
        prefix = "" if len(kinds) == 1 or kind == first else f"{' + '.join(kind)} · "
        parts.append(group_columns(rows, list(kind), prefix))
    if left_out:
        remark = f"{left_out} non-finite per-problem scores (NaN or inf) left out of the groups"
        if unscored:
            remark += f"; not grouped, no finite per-problem score: {', '.join(unscored)}"
        parts.append(GroupColumns(remarks=(remark,)))
    return merge(parts)
