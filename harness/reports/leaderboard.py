"""`harness leaderboard`: every finished training run in MLflow, grouped by algorithm, ranked by Avg.

    harness leaderboard                               # all experiments of the store
    harness leaderboard --experiment ce-gppo-sweeps --profile tiny --tag sweep.study=ce-gppo-beta-grid
    harness leaderboard --since 2026-12-01 --output-dir runs/leaderboard

A group is one algorithm with one set of hyper-parameters on one model for one number of steps
(the run params `loss.*`, `model.name`, `run.steps`, and `rollout.staleness` where it is not 0: a
synchronous run groups with those logged before the knob existed; likewise algo.top_entropy_quantile and
rollout.mismatch where set); its runs are its seeds. Columns: for every
benchmark an evaluation of the group's runs was tagged with (`harness eval --model <run dir>`
records the training run), avg@k in percent with the standard error (the runs' errors pooled)
and the spread over seeds (math: lenient, with the strict-mode avg@k beside it); Avg is the mean of
the runs' suite averages, or, for groups never evaluated on a suite, the held-out greedy accuracy
after RL; then the held-out gain and the stability figures (logged by every run as `stability/*`); the CSV
and the page add maj@k and pass^k (mean over the row's evaluations and benchmarks, at the k they logged).
Rows are ranked by Avg. Sweep trials and table runs are rows of their own, their source shown.
The "group" column ranks with noise in mind (`harness.reports.board_groups`): rows the Holm-corrected
test cannot tell from the leader share its group 1, and so on; "vs leader" is that difference.
Above the table, the grader audit's line (`harness grader-audit`), and, when the rows' scores came from
different numerical environments (env.* tags: device, dtype, backend, parallel sizes, versions; see
harness.common.environment), one line saying which rows differ in what.

Only reads: a store that does not exist is refused (nothing is created). A metric that is NaN or
infinite (a run that diverged) is left out of every mean, the page says how many values were,
and a cell with no finite value shows "–"; a group without a finite Avg is ranked last.
`--since` takes any date; one before 1970 (MLflow's clock starts there) means every run.
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from benchmarks.grading.grader_audit import audit_line
from benchmarks.results_table import STRICT_SUFFIX
from harness.common.environment import describe_differences, environment_from_tags
from harness.common.files import atomic_write_text
from harness.common.uris import redact
from harness.reports.render.html import html_page
from harness.reports.render.table import STABILITY, Cell, TableRow, to_csv, to_markdown
from harness.reports.stats.seed_stats import spread
from harness.tracking import RetryingClient, check_store, search_tagged

EVAL_TAG = "harness.train_run_id"
GROUP_PARAMS = ("model.name", "run.steps")
# options that apply on top of any loss, as run params -> their "off" value: a run that sets one is a row of its own
OPTION_PARAMS = {"algo.top_entropy_quantile": "None", "rollout.mismatch": "none"}
TOP = 6  # rows drawn in the figures
EPOCH = dt.date(1970, 1, 2)  # local midnight of an earlier date may lie before the epoch


def is_finite(value: float) -> bool:
    """False for NaN and inf, and for the largest float: MLflow's SQL stores record inf as it."""
    return math.isfinite(value) and abs(value) < sys.float_info.max


def finite(values) -> list[float]:
    """The finite values: a NaN or inf metric (a run that diverged) is left out of every mean."""
    return [v for v in values if is_finite(v)]


def non_finite(runs: list, evals: dict[str, dict[str, float]]) -> tuple[int, int]:
    """(how many metric values are NaN or inf, in how many runs), over the runs and their evaluations."""
    counts = [
        sum(not is_finite(v) for v in [*r.data.metrics.values(), *evals.get(r.info.run_id, {}).values()]) for r in runs
    ]
    return sum(counts), sum(1 for c in counts if c)


@dataclass(frozen=True)
class Filters:
    experiments: tuple[str, ...] = ()
    profile: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    since: dt.date | None = None  # local midnight; a date before 1970 keeps every run


def _label(params: dict[str, str]) -> str:
    """`dapo · tiny · 600 steps`, or `ce_gppo(beta1=0.75) · ...` when the run logged loss parameters:
    a loss without any shows its name alone, never an empty `dapo()`."""
    loss = {k.removeprefix("loss."): v for k, v in params.items() if k.startswith("loss.") and k != "loss.name"}
    inner = ", ".join(f"{k}={v}" for k, v in sorted(loss.items()))
    name = params.get("loss.name", "?") + (f"({inner})" if inner else "")
    stale = f" · staleness {params['rollout.staleness']}" if "rollout.staleness" in params else ""
    options = "".join(f" · {knob.split('.')[1]} {params[knob]}" for knob in OPTION_PARAMS if knob in params)
    return f"{name} · {params.get('model.name', '?')} · {params.get('run.steps')} steps" + stale + options


def row_environments(members: dict[str, list], evaluation_runs: dict) -> dict[str, dict[str, str]]:
    """label -> the numerical environment (env.* tags) its scores came from: each run's evaluation where it has one,
    else the training run. A row whose runs disagree is listed once per run ("label [run id]")."""
    environments: dict[str, dict[str, str]] = {}
    for label, runs in members.items():
        found = {}
        for run in runs:
            source = evaluation_runs.get(run.info.run_id, run)
            found[run.info.run_id[:8]] = environment_from_tags(source.data.tags)
        if len({tuple(sorted(env.items())) for env in found.values()}) == 1:
            environments[label] = next(iter(found.values()))
        else:
            environments.update({f"{label} [{run_id}]": env for run_id, env in found.items()})
    return environments


def _source(run) -> str:
    tags = run.data.tags
    if "sweep.study" in tags:
        return f"sweep {tags['sweep.study']}"
    if "table.profile" in tags:
        return f"table1 {tags['table.profile']}"
    return "train"


def training_runs(client, filters: Filters) -> list:
    experiments = [e for e in client.search_experiments() if not filters.experiments or e.name in filters.experiments]
    extra = []
    if filters.since and filters.since > EPOCH:  # earlier dates have no timestamp: every run is later
        start = dt.datetime.combine(filters.since, dt.time()).timestamp() * 1000
        extra.append(f"attributes.start_time >= {max(0, int(start))}")
    ids = [e.experiment_id for e in experiments]
    runs = search_tagged(client, ids, dict(filters.tags), extra=tuple(extra), max_results=50000)
    runs = [r for r in runs if "loss.name" in r.data.params]
    if filters.profile:
        from harness.schema import load_train_config

        model = load_train_config(filters.profile, None, {}).model.name
        runs = [r for r in runs if r.data.params.get("model.name") == model]
    return runs


def evaluations(client, runs: list) -> dict:
    """training run id -> its newest finished evaluation run."""
    ids = {r.info.run_id for r in runs}
    found = {}
    experiments = [e.experiment_id for e in client.search_experiments()]
    for run in client.search_runs(
        experiments, "attributes.status = 'FINISHED'", max_results=50000, order_by=["attributes.start_time ASC"]
    ):
        owner = run.data.tags.get(EVAL_TAG)
        if owner in ids:
            found[owner] = run
    return found


def _eval_cells(metrics_list: list[dict[str, float]]) -> dict[str, Cell]:
    """benchmark -> Cell from the runs' eval/<bench>/<metric>/avg_at_k (+ stderr) metrics; a math
    benchmark's strict-mode avg@k (eval/<bench>/acc_strict/...) beside it, when every run has it."""
    cells = {}
    keys = sorted({k for m in metrics_list for k in m if k.startswith("eval/") and "/avg_at_" in k})
    for key in keys:
        bench, metric = key.split("/")[1:3]
        if bench in cells or metric.endswith(STRICT_SUFFIX):
            continue  # the first (primary) metric of a benchmark; the strict one goes beside it below
        kept = [m for m in metrics_list if key in m and is_finite(m[key])]
        if not kept:
            continue  # shown as "–"
        values = [m[key] for m in kept]
        errors = finite(m.get(key.rsplit("/", 1)[0] + "/stderr", 0.0) for m in kept)
        se = math.sqrt(sum(e * e for e in errors)) / len(errors) if len(errors) == len(values) else None
        strict_key = key.replace(f"/{metric}/", f"/{metric}{STRICT_SUFFIX}/")
        stricts = [m[strict_key] for m in kept if is_finite(m.get(strict_key, math.nan))]
        strict = statistics.fmean(stricts) if stricts and len(stricts) == len(kept) else None
        cells[bench] = Cell(statistics.fmean(values), se, spread(values), len(values), strict)
    return cells


def _sample_metric_text(metrics_list: list[dict[str, float]], kind: str) -> str:
    """maj@k or pass^k (`kind` maj_at / pass_hat) of a row: the mean over its evaluated runs and their benchmarks of
    the primary metric's value at the largest k logged, in percent with that k ("61.0 @4"); "–" without one."""
    values, ks = [], set()
    for metrics in metrics_list:
        for key, value in metrics.items():
            parts = key.split("/")  # eval/<bench>/<metric>/<kind>_<k>
            if len(parts) == 4 and parts[3].startswith(kind + "_") and not parts[2].endswith(STRICT_SUFFIX):
                if is_finite(value):
                    values.append(value)
                    ks.add(parts[3].removeprefix(kind + "_"))
    if not values:
        return "–"
    return f"{100 * statistics.fmean(values):.1f} @{'/'.join(sorted(ks, key=int))}"


def leaderboard_rows(runs: list, evals: dict[str, dict[str, float]]) -> tuple[list[TableRow], list[str], dict, dict]:
    """(ranked rows, benchmark columns, extra columns {header: {label: text}}, the runs of each row).
    Non-finite metrics are left out of every mean."""
    groups: dict[tuple, list] = {}
    for run in runs:
        params = run.data.params
        key = tuple(sorted((k, v) for k, v in params.items() if k.startswith("loss.") or k in GROUP_PARAMS))
        if params.get("rollout.staleness", "0") != "0":  # asynchronous runs apart; synchronous ones as before
            key += (("rollout.staleness", params["rollout.staleness"]),)
        for knob, off in OPTION_PARAMS.items():  # options on top of any loss: apart when set
            if params.get(knob, off) != off:
                key += ((knob, params[knob]),)
        groups.setdefault(key + (("source", _source(run)),), []).append(run)
    rows, extra, members_of = [], {"source": {}, "held-out gain": {}, "maj@k": {}, "pass^k": {}}, {}
    for key, members in groups.items():
        params = dict(key)
        label = _label(params) + ("" if params["source"] == "train" else f" [{params['source']}]")
        metrics = [r.data.metrics for r in members]
        cells = _eval_cells([evals[r.info.run_id] for r in members if r.info.run_id in evals])
        suite = finite(
            evals[r.info.run_id]["eval/suite_avg"] for r in members if "eval/suite_avg" in evals.get(r.info.run_id, {})
        )
        heldout = finite(m["heldout_after_greedy_accuracy"] for m in metrics if "heldout_after_greedy_accuracy" in m)
        average = suite or heldout
        if average:
            cells["Avg"] = Cell(statistics.fmean(average), None, spread(average), len(average))
        strict = finite(evals.get(r.info.run_id, {}).get("eval/suite_avg_strict", math.nan) for r in members)
        if suite and len(strict) == len(suite):  # every evaluated run graded in both modes
            cells["Avg"] = replace(cells["Avg"], strict=statistics.fmean(strict))
        gains = finite(
            m["heldout_after_greedy_accuracy"] - m["heldout_before_greedy_accuracy"]
            for m in metrics
            if "heldout_after_greedy_accuracy" in m and "heldout_before_greedy_accuracy" in m
        )
        stability = {}
        for name, _, _ in STABILITY:
            values = finite(m[f"stability/{name}"] for m in metrics if f"stability/{name}" in m)
            if values:
                stability[name] = statistics.fmean(values)
        rows.append(TableRow(label, cells, stability, len(members)))
        members_of[label] = members
        extra["source"][label] = params["source"]
        extra["held-out gain"][label] = f"{100 * statistics.fmean(gains):+.1f}" if gains else "–"
        evaluated = [evals[r.info.run_id] for r in members if r.info.run_id in evals]
        extra["maj@k"][label] = _sample_metric_text(evaluated, "maj_at")  # majority vote of the k samples
        extra["pass^k"][label] = _sample_metric_text(evaluated, "pass_hat")  # all k samples right
    rows.sort(key=lambda r: -r.cells["Avg"].mean if "Avg" in r.cells else math.inf)  # no Avg: last
    benchmarks = sorted({b for r in rows for b in r.cells if b != "Avg"})
    return rows, benchmarks, extra, members_of


def curve_figures(client, rows: list[TableRow], members: dict[str, list], folder: Path) -> list[Path]:
    """Entropy, KL and held-out accuracy over steps of the top rows, from the runs' metric histories."""
    from harness.reports.render.training_figures import line_figure

    folder.mkdir(parents=True, exist_ok=True)
    figures = []
    for key, ylabel, window in (
        ("entropy", "entropy (nats/token)", 10),
        ("ppo_kl", "ppo_kl (nats)", 10),
        ("val_heldout_greedy_accuracy", "held-out greedy accuracy", 1),
    ):
        histories = {
            row.label: {
                i: [
                    {"step": m.step, key: m.value}
                    for m in client.get_metric_history(run.info.run_id, key)
                    if is_finite(m.value)  # a diverged step leaves a gap, not a broken axis
                ]
                for i, run in enumerate(members[row.label])
            }
            for row in rows
        }
        path = line_figure(
            histories,
            [r.label for r in rows],
            key,
            ylabel,
            f"{key} over training, top {len(rows)} rows",
            folder / f"{key}.png",
            window=window,
        )
        if path is not None:
            figures.append(path)
    return figures


def leaderboard(uri: str, filters: Filters, output_dir: str, log=print) -> list[TableRow]:
    """Write leaderboard.md/.csv/.html (and figures) into `output_dir`; the ranked rows. A store
    that does not exist is a TrackingError: a reader creates none."""
    check_store(uri, create=False)
    client = RetryingClient(uri)
    runs = training_runs(client, filters)
    shown_uri = redact(uri)  # the page is meant to be shared: a store password never reaches it
    if not runs:
        log(f"no finished training run in {shown_uri} matches these filters")
        return []
    from harness.reports.board_groups import leaderboard_groups
    from harness.reports.stats.groups import note

    evaluation_runs = evaluations(client, runs)
    evals = {train_id: run.data.metrics for train_id, run in evaluation_runs.items()}
    rows, benchmarks, extra, members = leaderboard_rows(runs, evals)
    groups = leaderboard_groups(client, [r.label for r in rows], members, evaluation_runs)
    lead = {"group": groups.group, "vs leader": groups.versus}
    folder = Path(output_dir)
    folder.mkdir(parents=True, exist_ok=True)
    markdown = to_markdown(rows, benchmarks, lead=lead)
    setup = (
        f"{len(runs)} finished training runs in {shown_uri}, {len(rows)} groups, ranked by Avg (suite average of "
        "their evaluations, else held-out greedy accuracy after RL); percent: mean ± se (sd over seeds)"
    )
    grouping = note(groups)
    left_out, of_runs = non_finite(runs, evals)
    if left_out:
        setup += (
            f"; {left_out} non-finite metric values (NaN or inf) of {of_runs} runs left out of every mean "
            "(–: no finite value)"
        )
    differing = describe_differences(row_environments({r.label: members[r.label] for r in rows}, evaluation_runs))
    if differing:  # hardware, precision and parallelism move scores: say so where rows are compared
        setup += f"; {differing}"
    audit = audit_line()  # the grader every evaluation here was scored with, audited (cached per version)
    under = f"\n{grouping}\n" if grouping else ""
    # each file goes to a temporary sibling renamed over its name: a symlink there is replaced, never written through
    atomic_write_text(folder / "leaderboard.md", f"# Leaderboard\n\n{setup}\n\n{audit}\n\n{markdown}\n{under}")
    atomic_write_text(folder / "leaderboard.csv", to_csv(rows, benchmarks, {**extra, **lead}))
    figures = curve_figures(client, rows[:TOP], members, folder / "figures")
    notes = [grouping] if grouping else []
    page = html_page("Leaderboard", setup, rows, benchmarks, figures, extra, audit=audit, lead=lead, notes=notes)
    atomic_write_text(folder / "leaderboard.html", page)
    log(setup)
    log(markdown)
    if grouping:
        log(grouping)
    log(audit)
    log(f"written: {folder / 'leaderboard.md'}, {folder / 'leaderboard.csv'}, {folder / 'leaderboard.html'}")
    return rows
