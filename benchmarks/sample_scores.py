"""Per-problem maj@k and pass^k recomputed from samples.jsonl records, for reports that compare rows problem by problem.

    samples = [json.loads(line) for line in open("runs/eval/samples.jsonl")]
    problem_majority(samples)      # {"aime26": {"1": 1.0, "2": 0.0, ...}, ...}: maj@k of each problem
    problem_pass_hat(samples)      # the same with pass^k (all k samples right; pass^j with j=...)

Table 1 and the leaderboard pair rows on per-problem scores (benchmark -> problem id -> score, the
shape of `harness.reports.table1.build.per_problem_scores`, which gives avg@k's); these give maj@k's and
pass^k's in that shape, from the records alone: `correct` (the primary metric's verdict) and
`answer_class` (the sample's vote, `benchmarks.answer_classes`). The mean over problems of either map
equals results.json's maj@k / pass^k of the same evaluation (tests/benchmarks/test_runner.py checks it).
A benchmark whose records have no `answer_class` (code, instruction following, files written before
maj@k existed) has no maj@k entry.
"""

from collections.abc import Iterable

from benchmarks.eval_metrics import majority_correct, pass_hat_k


def _by_problem(samples: Iterable[dict]) -> dict[str, dict[str, list[dict]]]:
    """benchmark -> problem id (as text) -> its records in sample order."""
    grouped: dict[str, dict[str, list[dict]]] = {}
    for record in samples:
        grouped.setdefault(record["benchmark"], {}).setdefault(str(record["id"]), []).append(record)
    for problems in grouped.values():
        for records in problems.values():
            records.sort(key=lambda record: record["sample"])
    return grouped


def problem_majority(samples: Iterable[dict]) -> dict[str, dict[str, float]]:
    """benchmark -> problem id -> 1.0 when the problem's majority answer is right, else 0.0 (maj@k;
    ties and abstentions as `benchmarks.eval_metrics` documents)."""
    scores: dict[str, dict[str, float]] = {}
    for bench, problems in _by_problem(samples).items():
        if not all("answer_class" in record for records in problems.values() for record in records):
            continue
        scores[bench] = {
            problem: float(majority_correct([r["answer_class"] for r in records], [r["correct"] for r in records]))
            for problem, records in problems.items()
        }
    return scores


def problem_pass_hat(samples: Iterable[dict], j: int | None = None) -> dict[str, dict[str, float]]:
    """benchmark -> problem id -> unbiased pass^j of the problem's samples (default j: all of them, pass^k)."""
    scores: dict[str, dict[str, float]] = {}
    for bench, problems in _by_problem(samples).items():
        scores[bench] = {}
        for problem, records in problems.items():
            verdicts = [bool(r["correct"]) for r in records]
            scores[bench][problem] = pass_hat_k(len(verdicts), sum(verdicts), j or len(verdicts))
    return scores
