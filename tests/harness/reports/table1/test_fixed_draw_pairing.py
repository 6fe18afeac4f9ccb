"""Table 1 on a fixed draw: every seed evaluates the same problems, so two rows are paired on the whole
set, and the benchmarks' versions are part of a job's evaluation hash (an older draw is evaluated anew)."""

import json
import zlib

from benchmarks import evaluate, get_benchmark
from harness.profiles import PROFILES
from harness.reports.stats.accuracy import difference
from harness.reports.table1.reproduce import Job, benchmark_versions, eval_config
from harness.reports.table1.rows import ROWS

URI = "sqlite:////nonexistent/m.db"  # never opened


def _row_scores(sampler_for_seed, tmp_path, name):
    """benchmark -> seed -> problem id -> correct, from a real evaluation per seed."""
    arith = get_benchmark("arith_l2_compact")
    scores = {}
    for seed in range(3):
        folder = tmp_path / f"{name}-{seed}"
        evaluate([arith], sampler_for_seed(seed), k=1, limit=None, seed=seed, output_dir=folder, progress=False)
        samples = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
        scores[seed] = {s["id"]: float(s["correct"]) for s in samples}
    return {arith.name: scores}


def _answers():
    return {row["problem"]: row["answer"] for row in get_benchmark("arith_l2_compact").load()}


def test_two_rows_are_paired_on_every_problem_of_the_draw(tmp_path):
    answers = _answers()

    def good(seed):  # right except on a seed-dependent tenth of the problems
        return lambda prompts, n: [[answers[p] if (zlib.crc32(p.encode()) + seed) % 10 else "0"] * n for p in prompts]

    def poor(seed):  # right on half
        return lambda prompts, n: [[answers[p] if (zlib.crc32(p.encode()) + seed) % 2 else "0"] * n for p in prompts]

    result = difference(_row_scores(good, tmp_path, "good"), _row_scores(poor, tmp_path, "poor"), ["arith_l2_compact"])
    assert result.paired and result.seeds == 3 and result.problems == len(answers) == 500
    assert result.mean > 0 and not result.covers_zero()


def test_the_benchmark_versions_enter_the_evaluation_hash(tmp_path, monkeypatch):
    profile, job = PROFILES["tiny"], Job(next(r for r in ROWS if r.label == "GRPO"), 0)
    versions = benchmark_versions(profile.suite)
    assert versions == {"arith_l2_compact": get_benchmark("arith_l2_compact").version}
    before = eval_config(profile, job, "model", "train-key", tmp_path, URI).tags["table.eval_hash"]
    import harness.reports.table1.reproduce as reproduce

    monkeypatch.setattr(reproduce, "benchmark_versions", lambda suite: {**versions, "arith_l2_compact": "draw v1"})
    after = eval_config(profile, job, "model", "train-key", tmp_path, URI).tags["table.eval_hash"]
    assert before != after
