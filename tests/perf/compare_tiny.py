"""Paired-seed comparison of losses on the tiny profile: accuracy gain and end entropy.

    python tests/perf/compare_tiny.py --losses grpo ce_gppo --seeds 0 1 2 3 4 [--steps 600]
    python tests/perf/compare_tiny.py --losses ppo=ce_gppo:beta1=0,beta2=0 only_b2=ce_gppo:beta1=0

A variant is `LOSS` or `LABEL=LOSS:PARAM=VALUE,...` (loss hyper-parameters for that variant).

Runs `harness train --profile tiny` once per (loss, seed) in a subprocess (all runs of a seed
share the cached warm start), then prints per-run figures and, for every loss against the
first one, the mean paired difference with a 95% t-interval. Entropy is averaged over the last
`--tail` steps to smooth step-to-step noise. Not a test: it takes minutes per run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from harness.reports.stats.seed_stats import t_interval


def tracking_uri(args) -> str:
    return f"sqlite:///{Path(args.output).resolve()}/mlflow.db"


def parse_variant(spec: str) -> tuple[str, str, list[str]]:
    """`ce_gppo` or `b1zero=ce_gppo:beta1=0,beta2=1` -> (label, loss name, loss flags)."""
    head, _, params = spec.partition(":")
    label, _, loss = head.rpartition("=")
    flags = []
    for item in filter(None, params.split(",")):
        key, _, value = item.partition("=")
        flags += [f"--loss.{key}", value]
    return label or spec.replace(":", "-").replace(",", "-"), loss, flags


def run(variant: str, seed: int, args) -> dict:
    label, loss, loss_flags = parse_variant(variant)
    out = Path(args.output) / f"{label}-seed{seed}"
    if not (out / "summary.json").is_file():
        cmd = [
            sys.executable,
            "-m",
            "harness.cli",
            "train",
            "--profile",
            "tiny",
            "--loss",
            loss,
            *loss_flags,
            "--run.seed",
            str(seed),
            "--run.steps",
            str(args.steps),
            "--output-dir",
            str(out),
            "--tracking-uri",
            tracking_uri(args),
            *args.extra,
        ]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    summary = json.loads((out / "summary.json").read_text())
    tail = summary["history"][-args.tail :]
    return {
        "before": summary["heldout_before"]["greedy_accuracy"],
        "after": summary["heldout_after"]["greedy_accuracy"],
        "sampled_after": summary["heldout_after"]["sampled_accuracy"],
        "entropy": statistics.fmean(h["entropy"] for h in tail),
        "clip_low": statistics.fmean(h["clip_frac_low"] for h in summary["history"]),
        "clip_high": statistics.fmean(h["clip_frac_high"] for h in summary["history"]),
    }


def interval(values: list[float]) -> str:
    return str(t_interval(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--losses", nargs="+", default=["grpo", "ce_gppo"], help="variants; the first is the base")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--tail", type=int, default=20)
    parser.add_argument("--output", default="runs/compare_tiny")
    parser.add_argument("--jobs", type=int, default=2, help="runs in parallel")
    parser.add_argument("extra", nargs="*", help="more overrides after --, e.g. -- --optim.lr 1e-4")
    args = parser.parse_args()
    Path(args.output).mkdir(parents=True, exist_ok=True)  # runs share one fresh store: harness.tracking locks it
    jobs = [(loss, seed) for seed in args.seeds for loss in args.losses]
    with ThreadPoolExecutor(args.jobs) as pool:  # each run is its own process (one torch thread)
        results = dict(zip(jobs, pool.map(lambda job: run(*job, args), jobs)))
    print(
        f"{'loss':<10}{'seed':>5}{'acc before':>12}{'acc after':>11}{'sampled':>9}"
        f"{'entropy':>9}{'clip lo':>9}{'clip hi':>9}"
    )
    for (loss, seed), r in results.items():
        loss = parse_variant(loss)[0]
        print(
            f"{loss:<10}{seed:>5}{r['before']:>12.3f}{r['after']:>11.3f}{r['sampled_after']:>9.3f}"
            f"{r['entropy']:>9.4f}{r['clip_low']:>9.4f}{r['clip_high']:>9.4f}"
        )
    for loss in args.losses:
        gains = [results[loss, s]["after"] - results[loss, s]["before"] for s in args.seeds]
        print(f"{parse_variant(loss)[0]}: greedy accuracy gain over warm start {interval(gains)}")
    base = args.losses[0]
    for loss in args.losses[1:]:
        diffs = [results[loss, s]["entropy"] - results[base, s]["entropy"] for s in args.seeds]
        print(
            f"entropy {parse_variant(loss)[0]} - {parse_variant(base)[0]} (paired): {interval(diffs)}; "
            f"higher on {sum(d > 0 for d in diffs)}/{len(diffs)} seeds"
        )


if __name__ == "__main__":
    main()
