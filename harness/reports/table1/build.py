"""The Table 1 report, built from MLflow: the table, then its registered sections, as Markdown, CSV and HTML.

For every (row, seed) of the plan it reads the FINISHED training run (its summary.json artifact:
per-step history and stability figures) and evaluation run (eval/results.json and
eval/samples.jsonl: per-problem scores) by their table.* tags, builds the table, and asks each
section of harness.reports.table1.sections, in their fixed order, for its pieces. It writes into
the output folder

    table1.md      the title and setup, the grader audit's line, every row and seed that is missing
                   (with the failed job's error and log), the table (our rows; on the paper profiles
                   the paper's numbers under them; each math cell lenient with strict beside it),
                   then the sections: differences to the baseline row and the smallest difference
                   the budget detects, Staleness (with staleness rows), the recipe audit (the paper
                   profiles), the paper's claims (accuracy claims Holm-adjusted), the figures
    table1.csv     every cell as mean / se / sd, the stability figures, then the sections' columns
                   (the differences; the Staleness section's figures and differences to K=0)
    table1.html    one static page of the same (figures embedded), no network needed
    scores.json    the per-problem scores of every row and seed (what `harness plan` measures from)
    figures/       the PNGs

and logs all of it as artifacts of a report run (tag table.report) in the training experiment.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from pathlib import Path

from benchmarks.runner import strict_name
from harness.common.files import atomic_write_text, null_as_nan
from harness.profiles import EVAL_EXPERIMENT, TRAIN_EXPERIMENT, Profile
from harness.reports.paper_numbers import paper_rows
from harness.reports.render.html import html_document, missing_html, table_html
from harness.reports.render.table import SeedResult, build_table, to_csv, to_markdown
from harness.reports.table1.differences import row_scores
from harness.reports.table1.rows import Row
from harness.reports.table1.sections import BODY, HEAD, NOTES, TAIL, ReportInputs, Section, report_sections
from harness.tracking import STARTING_POLICY_TAG, RetryingClient, tagged_runs, tracked_run


def _artifact_json(client, run_id: str, path: str, folder: Path):
    local = Path(client.download_artifacts(run_id, path, str(folder)))
    if path.endswith(".jsonl"):
        return [json.loads(line) for line in local.read_text().splitlines() if line.strip()]
    return json.loads(local.read_text())


def per_problem_scores(results: dict, samples: list[dict], strict: bool = False) -> dict[str, dict[str, float]]:
    """benchmark -> problem id -> mean of its samples' primary score (`strict`: of the same samples graded
    in the math grader's strict mode, for the benchmarks graded in both modes only)."""
    primary = {name: b["primary_metric"] for name, b in results["benchmarks"].items()}
    if strict:
        primary = {name: strict_name(metric) for name, metric in primary.items()}
    collected: dict[str, dict[str, list[float]]] = {}
    for sample in samples:
        bench = sample["benchmark"]
        if primary[bench] in sample["scores"]:
            collected.setdefault(bench, {}).setdefault(str(sample["id"]), []).append(sample["scores"][primary[bench]])
    return {b: {p: statistics.fmean(v) for p, v in problems.items()} for b, problems in collected.items()}


def collect(profile: Profile, rows: list[Row], seeds: list[int], uri: str, expected: dict):
    """(SeedResults per row and seed, histories per row and seed, held-out accuracy before / after RL per
    row and seed, benchmarks, starting policies per row and seed) from MLflow.

    The starting policy is the `starting_policy` tag of the training run (of the evaluation run for the
    base row, which trains nothing); a run from before the tag existed has none.

    `expected[(row label, seed)]` = (training hash or None for the base row, evaluation hash): only
    runs of exactly those settings count, so runs of other steps or limits in the store never mix in."""
    client = RetryingClient(uri)
    results: dict[str, dict[int, SeedResult]] = {}
    histories: dict[str, dict[int, list[dict]]] = {}
    heldout: dict[str, dict[int, dict]] = {}
    benchmarks: list[str] = []
    starting: dict[str, dict[int, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            for seed in seeds:
                tags = {"table.profile": profile.name, "table.row": row.label, "table.seed": str(seed)}
                train_key, eval_key = expected[row.label, seed]
                evals = tagged_runs(client, EVAL_EXPERIMENT, {**tags, "table.eval_hash": eval_key})
                figures, start = {}, None
                if row.loss is not None:
                    trained = tagged_runs(client, TRAIN_EXPERIMENT, {**tags, "table.hash": train_key})
                    if not trained:
                        continue
                    summary = _artifact_json(client, trained[0].info.run_id, "summary.json", Path(tmp) / "s")
                    histories.setdefault(row.label, {})[seed] = [null_as_nan(h) for h in summary["history"]]
                    heldout.setdefault(row.label, {})[seed] = _heldout(summary)
                    figures = null_as_nan(summary["stability"])
                    start = trained[0].data.tags.get(STARTING_POLICY_TAG)
                if not evals:
                    continue
                run_id = evals[0].info.run_id
                start = start if row.loss is not None else evals[0].data.tags.get(STARTING_POLICY_TAG)
                if start is not None:
                    starting.setdefault(row.label, {})[seed] = start
                evaluation = _artifact_json(client, run_id, "eval/results.json", Path(tmp) / "r")
                samples = _artifact_json(client, run_id, "eval/samples.jsonl", Path(tmp) / "j")
                benchmarks = benchmarks or list(evaluation["benchmarks"])
                scores = per_problem_scores(evaluation, samples)
                strict = per_problem_scores(evaluation, samples, strict=True)
                results.setdefault(row.label, {})[seed] = SeedResult(scores, figures, strict, vote_metrics(evaluation))
    return results, histories, heldout, benchmarks, starting


def vote_metrics(evaluation: dict) -> dict[str, dict[str, float]]:
    """benchmark -> {"maj@k": v, "pass^k": v}: the primary metric's majority vote and all-k-right figures from
    results.json (benchmarks.eval_metrics), {} for a benchmark without them (k = 1, or an older results.json)."""
    found = {}
    for bench, summary in evaluation.get("benchmarks", {}).items():
        values = summary.get("metrics", {}).get(summary.get("primary_metric"), {})
        kept = {
            key: float(v)
            for key, v in values.items()
            if key.startswith(("maj@", "pass^")) and key not in ("maj@1", "pass^1")
        }
        if kept:
            found[bench] = kept
    return found


def _heldout(summary: dict) -> dict:
    """Greedy held-out accuracy before and after RL, and the steps done (the accuracy figure's ends)."""
    before, after = summary.get("heldout_before") or {}, summary.get("heldout_after") or {}
    return {
        "before": before.get("greedy_accuracy"),
        "after": after.get("greedy_accuracy"),
        "steps": summary.get("steps_completed"),
    }


def scores_file(profile: Profile, rows: list[Row], results: dict, benchmarks: list[str]) -> str:
    """scores.json: the per-problem scores behind the table, for `harness plan` (harness.reports.stats.seed_planner)."""
    payload = {
        "profile": profile.name,
        "samples": profile.k,
        "benchmarks": benchmarks,
        "trained": [r.label for r in rows if r.loss is not None and r.label in results],
        "rows": {label: row_scores(by_seed, benchmarks) for label, by_seed in results.items()},
    }
    return json.dumps(payload)


def build_report(
    profile: Profile,
    rows: list[Row],
    seeds: list[int],
    root: Path,
    uri: str,
    expected: dict,
    log=print,
    failed: dict | None = None,
    baseline: str = "GRPO",
) -> dict:
    """Write the report of what finished; every (row, seed) without its runs is listed as missing,
    with why (`failed[(row label, seed)]`: the job's error and log) where that is known. Every row is
    compared with the `baseline` row. Returns the table, the missing lines, the files written and
    each section's findings under its name."""
    results, histories, heldout, benchmarks, starting = collect(profile, rows, seeds, uri, expected)
    results = {r.label: results[r.label] for r in rows if r.label in results}
    table = build_table(results, benchmarks)
    scores = {label: row_scores(by_seed, benchmarks) for label, by_seed in results.items()}
    inputs = ReportInputs(
        profile, rows, seeds, baseline, results, histories, heldout, benchmarks, table, scores, root, starting
    )
    sections = [s for s in report_sections() if s.applies(inputs)]
    found = {s.name: s.build(inputs) for s in sections}
    paper = paper_rows(profile.paper_model) if profile.paper_model else None
    missing = [
        f"{r.label} seed {s}: {(failed or {}).get((r.label, s), 'no finished run in MLflow')}"
        for r in rows
        for s in seeds
        if s not in results.get(r.label, {})
    ]
    title = f"Table 1 on the {profile.name} profile"
    setup = (
        f"{len(seeds)} paired seeds; evaluated on {', '.join(benchmarks)} with avg@{profile.k} at temperature "
        f"{profile.temperature}, top-p {profile.top_p}; cells are percent: avg@k ± standard error over problems "
        "(pooled over seeds and samples) (sd over seeds); math is graded leniently (any equal value, the headline) "
        "and strictly (the worked-out form a careful MATH grader demands), strict beside"
    )
    md = _pieces(sections, found, "markdown")
    markdown = [f"# {title}", "", setup, "", *md[HEAD]]
    if missing:  # before the table: a row that is not there must not go unnoticed
        markdown += ["**Missing from this table** (run the same command again once the cause is fixed):", ""]
        markdown += [*(f"- {line}" for line in missing), ""]
    markdown += [to_markdown(table, benchmarks, paper), "", *md[BODY]]
    # atomic: a report killed half-way leaves the previous one whole
    atomic_write_text(root / "table1.md", "\n".join(markdown) + "\n")
    extra = {header: column for s in sections if s.csv for header, column in s.csv(found[s.name]).items()}
    atomic_write_text(root / "table1.csv", to_csv(table, benchmarks, extra))
    page = _pieces(sections, found, "html")
    blocks = [*page[HEAD], table_html(table, benchmarks, paper), *page[BODY], *page[NOTES], *missing_html(missing)]
    atomic_write_text(root / "table1.html", html_document(title, setup, [*blocks, *page[TAIL]]))
    atomic_write_text(root / "scores.json", scores_file(profile, rows, results, benchmarks))
    outputs = [root / "table1.md", root / "table1.csv", root / "table1.html", root / "scores.json"]
    outputs += [path for s in sections if s.files for path in s.files(found[s.name])]
    with tracked_run(uri, TRAIN_EXPERIMENT, f"table1-report-{profile.name}", tags={"table.report": profile.name}):
        import mlflow

        for path in outputs:
            mlflow.log_artifact(str(path), artifact_path="figures" if path.suffix == ".png" else None)
    log(to_markdown(table, benchmarks, paper))
    for section in sections:
        for text in section.terminal(found[section.name]) if section.terminal else []:
            log(text)
    log(f"\nreport: {root / 'table1.md'}, {root / 'table1.csv'}, {root / 'table1.html'}; figures in {root / 'figures'}")
    return {"table": table, "missing": missing, "outputs": outputs, **found}


def _pieces(sections: list[Section], found: dict, output: str) -> dict[str, list[str]]:
    """region -> the pieces of one output (markdown or html) of every section, in the sections' order."""
    regions: dict[str, list[str]] = {HEAD: [], BODY: [], NOTES: [], TAIL: []}
    for section in sections:
        render = getattr(section, output)
        for region, pieces in (render(found[section.name]) if render else {}).items():
            regions[region] += pieces
    return regions
