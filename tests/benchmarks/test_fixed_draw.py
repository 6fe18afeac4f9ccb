"""Synthetic benchmarks evaluate one fixed draw of problems: the evaluation seed drives sampling only,
so every seed (and every Table 1 row) sees the same problems."""

import json
import random

from benchmarks import evaluate, get_benchmark
from benchmarks.benchmark_registry import BENCHMARKS
from benchmarks.families.arithmetic import DRAW_SEED, generate_arithmetic


def _seeded_sampler(seed):
    """Completions that depend on the evaluation seed, as a sampling model's would."""
    rng = random.Random(seed)
    return lambda prompts, n: [[f"\\boxed{{{rng.randrange(200)}}}" for _ in range(n)] for _ in prompts]


def _ids(folder):
    return [json.loads(line)["id"] for line in (folder / "samples.jsonl").read_text().splitlines()]


def test_two_evaluation_seeds_evaluate_the_same_problems(tmp_path):
    arith = get_benchmark("arith_l2_compact")
    for seed in (0, 3):
        evaluate(
            [arith], _seeded_sampler(seed), k=1, limit=None, seed=seed, output_dir=tmp_path / f"s{seed}", progress=False
        )
    first, second = _ids(tmp_path / "s0"), _ids(tmp_path / "s3")
    assert first == second and len(set(first)) == 500
    samples = [(tmp_path / f"s{s}" / "samples.jsonl").read_text() for s in (0, 3)]
    assert samples[0] != samples[1]  # the seed still drives sampling


def test_the_draw_is_the_test_split_permuted_by_the_benchmark_seed_and_named_in_its_version():
    arith = get_benchmark("arith_l2_compact")
    assert arith.draw_seed == DRAW_SEED
    assert arith.load(limit=20) == generate_arithmetic(2, "test", 20, DRAW_SEED, style="compact")
    assert arith.load(limit=20) != generate_arithmetic(2, "test", 20, DRAW_SEED + 1, style="compact")
    assert arith.version.endswith("draw v2")


def test_every_generated_benchmark_names_its_draw_in_its_version():
    generated = [b for b in BENCHMARKS.values() if b.generate is not None]
    assert generated and all("draw" in b.version for b in generated)
