"""The profiles, one registry: each training profile and how Table 1 runs on it.

    profile = get_profile("tiny", "--profile")   # a one-line ConfigError naming the valid ones otherwise
    profile.config_file                          # harness/configs/tiny.yaml: the training defaults
    profile.k, profile.seeds                     # its Table 1 budget
    profiles_help()                              # "tiny (CPU, minutes), smol (...), ..." for --help

A profile is a YAML file of training defaults (`harness/configs/<name>.yaml`, read by
`harness.schema.load_train_config`) plus the Table 1 settings of `harness table1` on it: what the
trained policies are evaluated on, with how many samples and seeds. Every name check and every help
string that lists profiles comes from `PROFILES`; adding a profile is its YAML file and one entry here.

`tiny` evaluates on the arithmetic held-out split the tiny model is trained for, `countdown` on the fixed
draw of held-out Countdown problems (docs/countdown-testbed.md), `smol` and the paper
profiles on the five math benchmarks of Table 1. Also here, because Table 1 and the evaluation
share them: the paper's evaluation sampling and the MLflow experiments of Table 1's runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from harness.common.errors import ConfigError

CONFIG_DIR = Path(__file__).parent / "configs"
# Evaluation sampling of the paper (and of `harness eval`, Table 1 and validation checks).
EVAL_TEMPERATURE = 0.6
EVAL_TOP_P = 0.95
TRAIN_EXPERIMENT = "ce-gppo-table1"  # MLflow experiments of Table 1's training and evaluation runs
EVAL_EXPERIMENT = "ce-gppo-table1-eval"


@dataclass(frozen=True)
class Profile:
    name: str
    summary: str  # a few words for the help strings: what it runs on, what it is for
    # Table 1 on this profile (harness.reports.table1):
    suite: str  # the benchmarks (a suite or comma-separated names) the trained policies are evaluated on
    k: int  # samples per problem (avg@k)
    limit: int | None  # problems per benchmark (None: all)
    max_new_tokens: int
    seeds: int  # paired training seeds per row
    temperature: float = EVAL_TEMPERATURE
    top_p: float = EVAL_TOP_P
    eval_every: int | None = None  # held-out accuracy during training for the accuracy-over-steps figure
    train_overrides: dict = field(default_factory=dict)  # dotted training keys on top of the YAML file
    paper_model: str | None = None  # which of the paper's reported tables to print beside ours

    @property
    def config_file(self) -> Path:
        return CONFIG_DIR / f"{self.name}.yaml"


PAPER = Profile(
    "paper",
    "GPU, the official recipe",
    "math",
    k=32,  # the official validation: aime960_math_verify.json repeats each AIME problem 32 times
    limit=None,
    max_new_tokens=16384,
    seeds=1,
    eval_every=50,
    paper_model="1.5B",
)
PROFILES = {
    p.name: p
    for p in (
        Profile(
            "tiny",
            "CPU, minutes",
            "arith_l2_compact",
            k=4,
            limit=None,
            max_new_tokens=8,
            seeds=5,
            eval_every=50,
            train_overrides={"run.threads": 1},
        ),
        Profile(
            "smol",
            "SmolLM2-135M on CPU",
            "math",
            k=2,
            limit=20,
            max_new_tokens=512,
            seeds=3,
            eval_every=10,
            train_overrides={"run.threads": 1},
        ),
        PAPER,
        replace(PAPER, name="paper-text", summary="GPU, only what the paper's text states", k=16),
        Profile(
            "countdown",
            "CPU, Countdown (+ and -, numbers 1-40) with written-out steps (GRPO default)",
            "countdown_addsub",
            # one sample on each of 2,000 problems, 6 seeds: on this task a seed's luck per problem is the
            # noise (p(1-p) 0.04 per sample), so problems and seeds buy power, samples do not
            # (docs/countdown-testbed.md, r17: `harness plan` on the 5-seed x 4-sample x 500-problem run);
            # 6 seeds detected 5.8 points (r18); r21 measured 9 seeds at 3.7 but 46 minutes, 8 seeds at 4.05
            # on 2,000 problems; 8 seeds on the whole held-out split (3,470): 3.7 points, 47.7 minutes measured (r22)
            k=1,
            limit=None,
            max_new_tokens=32,
            seeds=8,
            eval_every=50,
            train_overrides={"run.threads": 1},
        ),
    )
}


def get_profile(name: str, key: str = "profile") -> Profile:
    """The profile called `name`; a ConfigError naming `key` (the flag or config key it came from) and the
    valid names otherwise."""
    if name not in PROFILES:
        raise ConfigError(f"{key}={name!r} is not known; valid: {profile_names()}")
    return PROFILES[name]


def profile_names() -> str:
    """ "tiny, smol, paper, paper-text, countdown"."""
    return ", ".join(PROFILES)


def profiles_help() -> str:
    """Every profile with its summary, for a --help line."""
    return ", ".join(f"{p.name} ({p.summary})" for p in PROFILES.values())
