"""`harness plan`: how many seeds x samples per problem a comparison needs to detect a difference of D points.

    harness plan --profile paper --difference 2.5        # the paper's benchmarks, stated assumptions
    harness plan --profile tiny --from runs/table1-tiny  # components measured on a Table 1 run
    harness plan --tracking-uri sqlite:///mlflow.db      # ... on the newest Table 1 report in a store

Per benchmark it prints the variance components it used (see harness.reports.stats.power for the
formula): the between-seed sd of a row's avg@k, the sd over problems of the paired per-problem
difference, the seed x problem interaction sd and the within-problem sampling variance p(1-p); then the
smallest difference the profile's own budget (its seeds x samples on its problems) detects with 80%
power at the 5% level, and the cheapest seeds x samples options that reach 80% power for D.

Where the components come from, first found:
1. `--from DIR`: the scores.json a Table 1 report writes (per-problem scores of every row and seed);
2. `--tracking-uri URI`: that file on the newest Table 1 report run in the store (tag table.report);
3. neither: runs/table1-<profile>/scores.json if it exists (the folder `harness table1` writes);
4. the `paper` profile: the stated PAPER_ASSUMPTIONS (each one justified in accuracy_power's docstring).
Measured components come from the trained rows (the base row is evaluated only). Nothing is written.
The plan says where they come from: a file, or the store (its password masked) and the report run's id.

Refused in one line (exit 2): a difference outside (0, 100] points, and measured scores of one seed per
row: one seed measures neither the between-seed variance nor the seed x problem interaction, and a plan
built on a "measured" 0 for both would promise far too few seeds.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from harness.common.errors import ConfigError, DataError, TrackingError
from harness.common.uris import redact
from harness.profiles import TRAIN_EXPERIMENT, get_profile

if TYPE_CHECKING:  # the statistics import numpy and scipy: a refused value is answered without them
    from harness.reports.stats.accuracy import Components

SCORES = "scores.json"
DEFAULT_DIFFERENCE = 2.5  # points: CE-GPPO(0.5,1) over the best baseline (DAPO) on Avg at 1.5B in the paper


def read_scores(path: Path) -> dict:
    """A scores.json, its seeds back to integers; DataError naming the file when it cannot be used."""
    try:
        payload = json.loads(path.read_text())
        rows = {
            label: {b: {int(s): problems for s, problems in seeds.items()} for b, seeds in row.items()}
            for label, row in payload["rows"].items()
        }
        return {**payload, "rows": rows, "source": str(path)}
    except (OSError, ValueError, KeyError, AttributeError, TypeError) as error:
        raise DataError(f"cannot read the scores of a Table 1 run from {path}: {error}") from None


def scores_from_folder(folder: str) -> dict:
    path = Path(folder) / SCORES
    if not path.is_file():
        raise DataError(f"--from {folder}: no {SCORES} there (a Table 1 output folder: `harness table1 --output-dir`)")
    return read_scores(path)


def scores_from_store(uri: str, profile: str | None) -> dict:
    """scores.json of the newest FINISHED Table 1 report run (of `profile`, if given) in the store."""
    from harness.tracking import RetryingClient, check_store, search_tagged

    check_store(uri, create=False)  # only reads: a missing store is refused, never created
    client = RetryingClient(uri)
    experiment = client.get_experiment_by_name(TRAIN_EXPERIMENT)
    runs = []
    if experiment is not None:
        tags = {"table.report": profile} if profile else {}
        runs = search_tagged(client, [experiment.experiment_id], tags, max_results=1000)  # newest first
    for run in (r for r in runs if r.data.tags.get("table.report")):
        if not any(a.path == SCORES for a in client.list_artifacts(run.info.run_id)):
            continue  # a report written before scores were kept
        with tempfile.TemporaryDirectory() as tmp:
            payload = read_scores(Path(client.download_artifacts(run.info.run_id, SCORES, tmp)))
        # the temporary download is gone once read: name what lasts, the store and the report run
        return {**payload, "source": f"the Table 1 report run {run.info.run_id} in {redact(uri)}"}
    which = f"of the {profile} profile " if profile else ""
    raise TrackingError(f"no Table 1 report {which}with per-problem scores in the store; run `harness table1` first")


def measured(payload: dict) -> dict[str, Components]:
    """benchmark -> components estimated on the trained rows of a scores.json."""
    from harness.reports.stats.accuracy import components_from

    trained = {label: payload["rows"][label] for label in payload.get("trained", []) if label in payload["rows"]}
    rows = trained or payload["rows"]
    return {b: components_from(rows, b, payload["samples"]) for b in payload["benchmarks"]}


def check_seeds(payload: dict) -> None:
    """Refuse measured scores in which no trained row has two seeds (see the module docstring)."""
    trained = [payload["rows"][label] for label in payload.get("trained", []) if label in payload["rows"]]
    most = max((len(seeds) for row in trained or payload["rows"].values() for seeds in row.values()), default=0)
    if most < 2:
        raise DataError(
            f"{payload['source']} holds one seed per row: one seed measures neither the seed variance nor the "
            "seed x problem interaction, so no seed count can be planned from it; run `harness table1 --seeds 2` "
            "(or more), or plan the paper profile on its stated assumptions (`harness plan --profile paper`)"
        )


def power_basis(payload: dict | None) -> str:
    """What the power figures are: at stated assumptions, or at the fiducial medians of a pilot's mean squares."""
    if payload is None:
        return "power: simulated at the stated components (normal tables of the mean squares)"
    seeds = sorted({len(s) for row in payload["rows"].values() for s in row.values()})
    measured_seeds = f"{seeds[0]}" if seeds[0] == seeds[-1] else f"{seeds[0]}-{seeds[-1]}"
    return (
        "power: simulated from the logit model fitted to the scores, its variance components at the fiducial "
        f"medians of the pilot's mean squares (median-unbiased; {measured_seeds} seeds per row measured)"
    )


def _points(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{100 * value:.1f}"


def _at_budget(c: Components, detect: float, seeds: int, samples: int) -> str:
    """The MDE at the budget; a 1-seed budget whose test rejects nulls on seed luck says how often."""
    from harness.reports.stats.power import LEVEL_SLACK, power_of

    if not math.isfinite(detect):
        return "–"
    if seeds == 1:
        null_rejected = power_of(c, 0.0, 1, samples, problems=c.problems)
        if null_rejected > LEVEL_SLACK * 0.05:
            return f"{detect:.1f} points (1 seed: a null rejected {100 * null_rejected:.0f}%)"
    return f"{detect:.1f} points"


def plan_lines(components: dict[str, Components], seeds: int, samples: int, difference: float) -> list[str]:
    """The table: per benchmark the components, the MDE at the budget, the options for `difference`."""
    from harness.reports.stats.accuracy import budget
    from harness.reports.stats.accuracy import minimum_detectable_difference as mde

    header = ["benchmark", "problems", "seed sd", "problem sd", "interact. sd", "p(1-p)", "MDE at budget"]
    header.append(f"for {difference:g} points: seeds x samples (power)")
    rows = []
    for name, c in components.items():
        detect = mde(c, seeds, samples, problems=c.problems)
        options = budget(c, difference) if math.isfinite(detect) else []
        # with unlimited seeds and samples only the problem term is left: the benchmark's own floor
        floor = mde(c, 10**6, 10**6, problems=c.problems) if math.isfinite(detect) else math.nan
        needed = ", ".join(f"{s}x{k} ({p:.2f})" for s, k, p in options) or (
            f"none up to 32 seeds x 64 samples (unlimited seeds and samples on {c.problems} problems: "
            f"{floor:.2f} points)"
        )
        if not math.isfinite(detect):
            needed = "not measurable (needs two trained rows on shared problems)"
        rows.append(
            [
                name,
                str(c.problems),
                _points(c.seed_sd),
                _points(c.problem_sd),
                _points(c.interaction_sd),
                f"{c.sample_var:.3f}",
                _at_budget(c, detect, seeds, samples),
                needed,
            ]
        )
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return lines


def plan(profile: str | None, difference: float, source: str | None, uri: str | None, log=print) -> dict:
    """Print the plan; returns {benchmark: Components} used. See the module docstring for the sources."""
    if profile is not None:
        get_profile(profile, "--profile")
    if not (0 < difference <= 100):  # NaN fails both comparisons
        raise ConfigError(f"--difference={difference:g} is out of range; allowed: (0, 100] points")
    payload = None
    if source is not None:
        payload = scores_from_folder(source)
    elif uri is not None:
        payload = scores_from_store(uri, profile)
    elif profile is not None and (Path("runs") / f"table1-{profile}" / SCORES).is_file():
        payload = read_scores(Path("runs") / f"table1-{profile}" / SCORES)
    if payload is not None and profile is not None and payload.get("profile") != profile:
        raise ConfigError(f"{payload['source']} holds a Table 1 of the {payload.get('profile')} profile, not {profile}")
    name = profile or (payload or {}).get("profile") or "paper"
    if payload is None and name != "paper":
        raise ConfigError(
            f"no measured Table 1 run of the {name} profile: run `harness table1 --profile {name}` first, or pass "
            "--from OUTPUT_DIR / --tracking-uri (stated assumptions exist for the paper profile only)"
        )
    table = get_profile(name)
    if payload is None:
        from harness.reports.stats.accuracy import PAPER_ASSUMPTIONS

        components = dict(PAPER_ASSUMPTIONS)
        where = "stated assumptions (harness.reports.stats.power.PAPER_ASSUMPTIONS; its docstring justifies each)"
    else:
        check_seeds(payload)
        components = measured(payload)
        trained = ", ".join(payload.get("trained") or payload["rows"])
        k = payload["samples"]
        where = f"measured on {payload['source']} (rows {trained}; {k} sample{'s' * (k != 1)} per problem)"
    seeds, samples = table.seeds, table.k
    log(
        f"harness plan: the {name} profile's Table 1 budget is {seeds} seed{'s' * (seeds != 1)} x "
        f"{samples} sample{'s' * (samples != 1)} per problem; detecting {difference:g} points with 80% power "
        "at the 5% level (two-sided, paired rows)"
    )
    log(f"components (points; p(1-p) a fraction): {where}")
    log(power_basis(payload))
    for line in plan_lines(components, seeds, samples, difference):
        log(line)
    log(
        "seeds x samples: per seed count the fewest samples per problem that reach 80% power; a seed is a training "
        "run, a sample only evaluation. One seed cannot measure the seed term it assumes."
    )
    return components
