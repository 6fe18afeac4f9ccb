"""Benchmark: the CPU seconds of the commands a new user expects to answer at once.

The target (issue 30) is under 1 s of CPU for a listing, `--help` and every refusal of a bad path or
value. Each command runs in a fresh interpreter, as a user runs it; its CPU time (user + system of the
child, from os.wait4's rusage) is what a shared machine charges it, which wall time on busy cores is not.
Not a pass/fail test; run it with

    make perf
    .venv/bin/python tests/perf/bench_cli.py [--rounds 5]

Figures before the fixes, on 2 shared cores (/usr/bin/time -f "%U+%S"): `harness models` 8.4 s
(it counted SmolLM2's parameters from its GGUF file), `harness --help` 2.3 s and `harness train --help`
2.5 s (the loss registry imported torch to list names), `harness leaderboard` on a missing store 3.9 s
(MLflow imported before the path was checked); refusals of `plan --difference 0` 3.0 s, `train --loss
nope` 2.4 s, `eval --model` a missing folder 3.9 s (numpy / torch imported before the check).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = "import sys; sys.argv[0] = 'harness'; from harness.cli import main; sys.exit(main())"
TARGET_S = 1.0


def commands(scratch: Path) -> dict[str, list[str]]:
    missing = scratch / "no" / "such.db"
    return {
        "harness models": ["models"],
        "harness --help": ["--help"],
        "harness train --help": ["train", "--help"],
        "harness leaderboard (missing store)": ["leaderboard", "--tracking-uri", f"sqlite:///{missing}"],
        "harness plan --difference 150": ["plan", "--profile", "paper", "--difference", "150"],
        "harness train --loss nope": ["train", "--profile", "tiny", "--loss", "nope", "--output-dir", str(scratch)],
        "harness eval --model (missing folder)": ["eval", "--model", str(scratch / "no-model")],
    }


def cpu_seconds(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    """(user + system CPU seconds, exit status) of one run of the CLI in a fresh interpreter."""
    process = subprocess.Popen(
        [sys.executable, "-c", RUN, *argv], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, process.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs per command; the median is shown")
    rounds = parser.parse_args().rounds
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    with tempfile.TemporaryDirectory() as scratch:
        print(f"{'command':<40}{'CPU s (median)':>16}{'exit':>6}  target < {TARGET_S:g} s")
        for name, argv in commands(Path(scratch)).items():
            runs = [cpu_seconds(argv, env) for _ in range(rounds)]
            median = statistics.median(seconds for seconds, _ in runs)
            verdict = "ok" if median < TARGET_S else "SLOW"
            print(f"{name:<40}{median:>16.2f}{runs[-1][1]:>6}  {verdict}")


if __name__ == "__main__":
    main()
