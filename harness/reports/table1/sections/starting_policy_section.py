"""Table 1's starting-policy line: which policy every row and seed started from (the warm start's key,
its held-out accuracy and steps; harness.training.warmstart.starting_policy_label), above the table.

Rows compared in one table are only comparable when they start from the same policy. When every run
names the same one the line says so once; when they differ (a warm start done on another machine, a
changed warm-start config, a run from before the policy was recorded) it says plainly that they
differ and which rows and seeds started from which. A per-row `starting_policy` csv column follows.
Runs are read from their MLflow tag (harness.reports.table1.build.collect): a store whose runs all
predate the tag has nothing to say, and the section is left out.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from harness.reports.table1.sections import HEAD, ReportInputs, Section, register

NOT_RECORDED = "not recorded (a run from before starting policies were recorded)"


@dataclass(frozen=True)
class StartingPolicies:
    by_policy: dict[str, list[tuple[str, int]]]  # starting policy line -> the (row label, seed) it started
    by_row: dict[str, dict[int, str]]  # row label -> seed -> starting policy line, finished runs only

    @property
    def same(self) -> bool:
        return len(self.by_policy) == 1


def build(inputs: ReportInputs) -> StartingPolicies:
    """Group the finished (row, seed) runs by the starting policy they name, in the rows' order."""
    by_policy: dict[str, list[tuple[str, int]]] = {}
    by_row: dict[str, dict[int, str]] = {}
    for row in inputs.rows:
        for seed in sorted(inputs.results.get(row.label, {})):
            policy = inputs.starting.get(row.label, {}).get(seed, NOT_RECORDED)
            by_policy.setdefault(policy, []).append((row.label, seed))
            by_row.setdefault(row.label, {})[seed] = policy
    return StartingPolicies(by_policy, by_row)


def _runs(pairs: list[tuple[str, int]]) -> str:
    """'GRPO seeds 0, 1; base seed 0'."""
    seeds: dict[str, list[int]] = {}
    for label, seed in pairs:
        seeds.setdefault(label, []).append(seed)
    return "; ".join(f"{label} seed{'s' if len(s) > 1 else ''} {', '.join(map(str, s))}" for label, s in seeds.items())


def lines(found: StartingPolicies) -> list[str]:
    """The sentence (every run the same) or the warning and one line per starting policy."""
    if found.same:
        return [f"Starting policy of every row and seed: {next(iter(found.by_policy))}."]
    head = (
        f"Rows and seeds started from {len(found.by_policy)} different starting policies, so their differences "
        "mix the policies' differences with the losses':"
    )
    return [head, *(f"{policy}: {_runs(pairs)}" for policy, pairs in found.by_policy.items())]


def markdown(found: StartingPolicies) -> dict[str, list[str]]:
    first, *rest = lines(found)
    if not rest:
        return {HEAD: [first, ""]}
    return {HEAD: [f"**{first}**", "", *(f"- {line}" for line in rest), ""]}


def html_blocks(found: StartingPolicies) -> dict[str, list[str]]:
    first, *rest = lines(found)
    items = "".join(f"<li>{html.escape(line)}</li>" for line in rest)
    return {HEAD: [f"<p class='starting'>{html.escape(first)}</p>" + (f"<ul>{items}</ul>" if rest else "")]}


def csv_column(found: StartingPolicies) -> dict[str, dict[str, str]]:
    """starting_policy per row: the one its seeds share, or each seed's when they differ."""
    column = {}
    for label, seeds in found.by_row.items():
        policies = set(seeds.values())
        column[label] = policies.pop() if len(policies) == 1 else " | ".join(f"seed {s}: {p}" for s, p in seeds.items())
    return {"starting_policy": column}


def recorded(inputs: ReportInputs) -> bool:
    """Whether any run of the report names its starting policy (stores written before the tag: none)."""
    return any(inputs.starting.values())


register(
    Section(
        "starting_policy",
        10,  # the first line above the table: what every row started from
        build,
        markdown=markdown,
        html=html_blocks,
        csv=csv_column,
        terminal=lines,
        applies=recorded,
    )
)
