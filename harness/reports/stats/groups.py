"""Significance groups as table columns: the leaderboard's and the sweep trial table's "group" column.

    column = group_columns({label: row scores}, benchmarks)
    column.group["grpo() ..."]        # "1 (leader)", "1", "2", "3 (unpaired)"
    column.versus["grpo() ..."]       # "-1.2 [-3.0, +0.5]": points to the leader, its interval

Rows are ranked and grouped by `harness.reports.stats.accuracy.significance_groups`: the leader opens group
1, every row whose difference to it is not significant after Holm's correction over all pairs of rows
joins it (family-wise error at most 5%: six equal rows leave some row outside group 1 in at
most 5% of pages), the best row left opens group 2, and so on. A row compared with the leader on the same seeds and
problems is paired; otherwise the comparison is unpaired and its cell says so.

Rows known only by an accuracy per seed (a sweep trial's or a training run's greedy held-out accuracy:
no per-problem answers are kept) enter through `bernoulli_scores`: a seed's accuracy p on n problems is
written as round(p n) ones and the rest zeros, under problem ids no other row shares, so the comparison
is unpaired (two independent means). For one seed that is exact, not an approximation: the spread over
problems of a 0/1 vector, all the unpaired interval uses, depends only on how many ones it holds.
Putting the ones on the same problems in every seed of a row treats a problem as solved by every seed
or none, the largest problem-to-problem spread those numbers allow: conservative, like every unpaired
comparison, which also ignores that the rows answered the same problems.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from harness.reports.stats.accuracy import HOLM, RowScores, Scores, significance_groups

NOT_COMPARED = "–"


@dataclass(frozen=True)
class GroupColumns:
    group: dict[str, str] = field(default_factory=dict)  # row label -> "1 (leader)", "2", "2 (unpaired)"
    versus: dict[str, str] = field(default_factory=dict)  # row label -> difference to the leader, points
    method: str = ""  # the interval method, named once under the table
    unpaired: int = 0  # how many rows were compared unpaired
    remarks: tuple[str, ...] = ()  # what the comparison left out and why (non-finite scores), said under the table


def bernoulli_scores(label: str, accuracy: dict[int, float], problems: int) -> Scores:
    """seed -> {problem id: 0 or 1} holding round(accuracy x problems) ones (see the module docstring)."""
    scores: Scores = {}
    for seed, value in accuracy.items():
        if not math.isfinite(value) or problems < 1:
            continue
        ones = round(value * problems)
        scores[seed] = {f"{label}#{i}": float(i < ones) for i in range(problems)}
    return scores


def group_columns(rows: dict[str, RowScores], benchmarks: list[str], prefix: str = "", **kw) -> GroupColumns:
    """The group and versus-leader texts of `rows` compared on the mean over `benchmarks`; `prefix` names
    the comparison when a table holds several ("held-out · 2"). Rows lacking a benchmark are left out."""
    comparable = {label: row for label, row in rows.items() if all(row.get(b) for b in benchmarks)}
    if not comparable or not benchmarks:
        return GroupColumns()
    group, versus, method, unpaired = {}, {}, "", 0
    for row in significance_groups(comparable, benchmarks, **kw):
        text = f"{prefix}{row.group}"
        if row.versus_leader is None:
            group[row.label], versus[row.label] = f"{text} (leader)", "–"
            continue
        method = method or row.versus_leader.method
        if not row.versus_leader.paired:
            unpaired += 1
            text += " (unpaired)"
        group[row.label], versus[row.label] = text, row.versus_leader.text()
    return GroupColumns(group, versus, method, unpaired)


def merge(parts: list[GroupColumns]) -> GroupColumns:
    """One column from the groups of several separately compared sets of rows."""
    group, versus = {}, {}
    for part in parts:
        group.update(part.group)
        versus.update(part.versus)
    methods = sorted({p.method for p in parts if p.method})
    remarks = tuple(r for p in parts for r in p.remarks)
    return GroupColumns(group, versus, "; ".join(methods), sum(p.unpaired for p in parts), remarks)


def note(columns: GroupColumns, level: float = 0.95, versus: str = "vs leader") -> str:
    """The sentence under a table that explains its group column (and the `versus` column beside it)."""
    if not columns.group:
        return "; ".join(columns.remarks)
    alpha = f"{100 - 100 * level:g}%"
    text = (
        f"group: rows the {HOLM}-corrected test (over all pairs) at {alpha} cannot tell from the "
        f"group's best row share its group (six equal rows: some row outside group 1 in at most {alpha} of pages); "
        f"{versus}: points, with its (uncorrected) {100 * level:g}% interval"
    )
    if columns.method:
        text += f" ({columns.method})"
    if columns.unpaired:
        text += (
            f"; {columns.unpaired} row(s) unpaired (other seeds or problems than the leader's, or only an "
            "accuracy per seed kept): compared row against row, which is conservative"
        )
    return "; ".join([text, *columns.remarks])
