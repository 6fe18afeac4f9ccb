"""Every benchmark by name, and the suites the CLI accepts (`--benchmarks math,ifeval`).

    get_benchmark("aime24").load()          # rows from $HARNESS_BENCHMARK_DIR
    resolve_suite("math")                   # the paper's five: aime24 aime25 hmmt25 math500 amc23
    resolve_suite("code,ifeval,amc22_23")   # suites and single names mix, order kept, no repeats

Suites: math (the paper's Table 1), code (humaneval, livecodebench), if (ifeval), arith (the
synthetic held-out splits, levels 1-4, natural prompts), all (every benchmark with offline
data, plus livecodebench; the arithmetic sanity sets are left out of "all").
"""

from benchmarks.arithmetic import LEVELS, arithmetic_benchmark
from benchmarks.benchmark import Benchmark
from benchmarks.humaneval import HUMANEVAL
from benchmarks.ifeval import IFEVAL
from benchmarks.livecodebench import LIVECODEBENCH
from benchmarks.math_competitions import MATH_BENCHMARKS

_ARITHMETIC = tuple(arithmetic_benchmark(level, style) for style in ("natural", "compact") for level in LEVELS)

BENCHMARKS: dict[str, Benchmark] = {
    b.name: b for b in (*MATH_BENCHMARKS, HUMANEVAL, LIVECODEBENCH, IFEVAL, *_ARITHMETIC)
}

SUITES: dict[str, tuple[str, ...]] = {
    "math": ("aime24", "aime25", "hmmt25", "math500", "amc23"),
    "code": ("humaneval", "livecodebench"),
    "if": ("ifeval",),
    "arith": tuple(f"arith_l{level}" for level in LEVELS),
    "all": (
        "aime24",
        "aime25",
        "hmmt25",
        "math500",
        "amc23",
        "amc22_23",
        "humaneval",
        "livecodebench",
        "ifeval",
    ),
}


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; valid: {', '.join(BENCHMARKS)}") from None


def resolve_suite(name_or_csv: str) -> list[Benchmark]:
    """Benchmarks named by a suite, a benchmark name, or a comma-separated mix of both."""
    names: list[str] = []
    for part in (p.strip() for p in name_or_csv.split(",")):
        if part in SUITES:
            names += SUITES[part]
        elif part in BENCHMARKS:
            names.append(part)
        else:
            raise ValueError(
                f"unknown benchmark or suite {part!r}; suites: {', '.join(SUITES)}; benchmarks: {', '.join(BENCHMARKS)}"
            )
    return [BENCHMARKS[name] for name in dict.fromkeys(names)]
