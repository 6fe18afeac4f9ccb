"""Every benchmark by name, and the suites the CLI accepts (`--benchmarks math,ifeval`).

    get_benchmark("aime24").load()          # rows from $HARNESS_BENCHMARK_DIR
    resolve_suite("math")                   # the paper's five: aime24 aime25 hmmt25 math500 amc23
    resolve_suite("fresh")                  # 2025-2026 competitions: aime26 hmmt_feb26 hmmt_nov25 brumo25 cmimc25
    resolve_suite("code,ifeval,amc22_23")   # suites and single names mix, order kept, no repeats
    resolve_suite("math,")                  # ValueError: empty names are errors, never "everything"

Suites: math (the paper's Table 1), fresh (MathArena's 2025-2026 competitions, the contamination
control: benchmarks.families.matharena), code (humaneval, livecodebench), if (ifeval), arith (the
synthetic held-out splits, levels 1-4, natural prompts), countdown (a fixed draw of 500 held-out
Countdown problems with 3 numbers, compact prompts: the countdown profile's; countdown_natural,
countdown4 and countdown_addsub, the + and - scheme's draw of 2,000, by name), all (every benchmark whose data
shared/benchmarks ships, plus livecodebench; the arithmetic and countdown sets are left out of "all", and
so are fresh, beyondaime, olympiadbench_num and minerva_math, whose files each user provides:
docs/benchmarks.md).
"""

from benchmarks.benchmark import Benchmark
from benchmarks.families.arithmetic import LEVELS, arithmetic_benchmark
from benchmarks.families.beyond_aime import BEYOND_AIME
from benchmarks.families.countdown import ADDSUB_DRAW_ROWS, countdown_benchmark
from benchmarks.families.humaneval import HUMANEVAL
from benchmarks.families.ifeval import IFEVAL
from benchmarks.families.livecodebench import LIVECODEBENCH
from benchmarks.families.math_competitions import MATH_BENCHMARKS
from benchmarks.families.matharena import FRESH_BENCHMARKS
from benchmarks.families.minerva_math import MINERVA_MATH
from benchmarks.families.olympiadbench import OLYMPIADBENCH_NUM

_ARITHMETIC = tuple(arithmetic_benchmark(level, style) for style in ("natural", "compact") for level in LEVELS)
_COUNTDOWN = (
    countdown_benchmark(3, "compact"),
    countdown_benchmark(3, "natural"),
    countdown_benchmark(4, "compact"),
    countdown_benchmark(3, "compact", rows=ADDSUB_DRAW_ROWS, scheme="addsub"),
)

BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        *MATH_BENCHMARKS,
        *FRESH_BENCHMARKS,
        BEYOND_AIME,
        OLYMPIADBENCH_NUM,
        MINERVA_MATH,
        HUMANEVAL,
        LIVECODEBENCH,
        IFEVAL,
        *_ARITHMETIC,
        *_COUNTDOWN,
    )
}

SUITES: dict[str, tuple[str, ...]] = {
    "math": ("aime24", "aime25", "hmmt25", "math500", "amc23"),
    "fresh": tuple(b.name for b in FRESH_BENCHMARKS),
    "code": ("humaneval", "livecodebench"),
    "if": ("ifeval",),
    "arith": tuple(f"arith_l{level}" for level in LEVELS),
    "countdown": ("countdown",),
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


def _valid_names() -> str:
    return f"suites: {', '.join(SUITES)}; benchmarks: {', '.join(BENCHMARKS)}"


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; valid: {', '.join(BENCHMARKS)}") from None


def resolve_suite(name_or_csv: str) -> list[Benchmark]:
    """Benchmarks named by a suite, a benchmark name, or a comma-separated mix of both.

    Strict: an empty or blank value and an empty item (a stray or trailing comma, "math,") are
    errors, like an unknown name, so a typo never silently changes what is evaluated."""
    if not isinstance(name_or_csv, str):
        raise ValueError(f"expected a suite or benchmark name, got {name_or_csv!r}; {_valid_names()}")
    parts = [part.strip() for part in name_or_csv.split(",")]
    if not any(parts):
        raise ValueError(f"no benchmark or suite named in {name_or_csv!r}; {_valid_names()}")
    if not all(parts):
        raise ValueError(f"empty benchmark or suite name in {name_or_csv!r} (a stray comma?); {_valid_names()}")
    names: list[str] = []
    for part in parts:
        if part in SUITES:
            names += SUITES[part]
        elif part in BENCHMARKS:
            names.append(part)
        else:
            raise ValueError(f"unknown benchmark or suite {part!r}; {_valid_names()}")
    return [BENCHMARKS[name] for name in dict.fromkeys(names)]
