"""The benchmark x metric table of an evaluation, for the terminal (or Markdown).

    results = evaluate(...)                      # or json.loads(Path("runs/eval/results.json").read_text())
    print(format_results(results))
    print(format_results(results, markdown=True))

One row per benchmark: its primary metric, avg@k with the standard error across problems,
the strict avg@k beside it when the benchmark is graded in both of the math grader's modes (the
primary `acc` is the lenient verdict, the headline; `acc_strict` demands the worked-out form; "-"
where a benchmark has one mode only), pass@1 and pass@k when the metric is pass/fail, maj@k (the
majority answer of the k samples is right; math) and pass^k (all k samples right) when k > 1, problems,
samples, and samples skipped because the prompt did not fit the model's context ("-" where a benchmark
lacks a column's metric). Scores are
percentages with one decimal, as papers report them. The last row is the suite average (the
unweighted mean of the primary avg@k, as results["suite"]["avg"]; strict: "avg_strict") with the
totals of the count columns.
"""

STRICT_SUFFIX = "_strict"  # benchmarks.runner.strict_name: `acc` -> `acc_strict`

_ABSENT = "-"


def _percent(value: float | None) -> str:
    return _ABSENT if value is None else f"{100 * value:.1f}"


def _table(results: dict, align: bool) -> tuple[list[str], list[list[str]], list[str]]:
    """(header, one row per benchmark, suite row) as text cells; `align` pads the mean and the
    error inside the "avg ± se" cells so that the ± signs line up."""
    k = results["settings"]["k"]
    summaries = results["benchmarks"]
    primaries = {name: summary["metrics"][summary["primary_metric"]] for name, summary in summaries.items()}
    # pass@1 and pass@k (one column when k is 1), then maj@k and pass^k (k > 1: at k = 1 both are pass@1),
    # only if some benchmark has them (pass/fail metrics; maj@k where answers can be compared).
    wanted = ("pass@1", f"pass@{k}", *((f"maj@{k}", f"pass^{k}") if k > 1 else ()))
    passes = [p for p in dict.fromkeys(wanted) if any(p in m for m in primaries.values())]
    stricts = {
        name: summary["metrics"].get(summary["primary_metric"] + STRICT_SUFFIX) for name, summary in summaries.items()
    }
    with_strict = any(stricts.values())
    header = ["benchmark", "metric", f"avg@{k} ± se (%)", *([f"strict avg@{k} (%)"] if with_strict else [])]
    header += [f"{p} (%)" for p in passes]
    header += ["problems", "samples", "skipped"]
    means = {name: _percent(metric[f"avg@{k}"]) for name, metric in primaries.items()}
    errors = {name: _percent(metric["stderr"]) for name, metric in primaries.items()}
    mean_width = max(map(len, means.values()), default=0) if align else 0
    error_width = max(map(len, errors.values()), default=0) if align else 0
    rows = []
    for name, summary in summaries.items():
        metric = primaries[name]
        rows.append(
            [
                name,
                summary["primary_metric"],
                f"{means[name].rjust(mean_width)} ± {errors[name].rjust(error_width)}",
                *([_percent(stricts[name][f"avg@{k}"] if stricts[name] else None)] if with_strict else []),
                *(_percent(metric.get(p)) for p in passes),
                str(summary["num_problems"]),
                str(summary["num_samples"]),
                str(summary.get("num_skipped", 0)),  # results.json files from before skipping existed
            ]
        )
    totals = [sum(int(row[column]) for row in rows) for column in range(len(header) - 3, len(header))]
    suite_mean = _percent(results["suite"]["avg"]).rjust(mean_width) + " " * (error_width + 3 if align else 0)
    count = f"{len(rows)} benchmark{'' if len(rows) == 1 else 's'}"
    strict_mean = [_percent(results["suite"].get("avg_strict"))] if with_strict else []
    suite = ["suite mean", count, suite_mean, *strict_mean, *("" for _ in passes)]
    return header, rows, suite + [str(total) for total in totals]


def format_results(results: dict, *, markdown: bool = False) -> str:
    """`results` (what `evaluate` returns, or results.json) as a table: aligned plain text, or
    a Markdown table with `markdown`. No trailing newline."""
    header, rows, suite = _table(results, align=not markdown)
    if markdown:
        alignment = ["---", "---"] + ["---:"] * (len(header) - 2)
        lines = [header, alignment, *rows, suite]
        return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)
    widths = [max(len(row[column]) for row in (header, *rows, suite)) for column in range(len(header))]

    def line(cells: list[str]) -> str:
        # Names left-aligned, numbers right-aligned.
        padded = [cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(cells, widths))]
        return "  ".join(padded).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(header), rule, *(line(row) for row in rows), rule, line(suite)])
