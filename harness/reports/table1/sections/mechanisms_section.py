"""Table 1's masking / clipping section: the share of response tokens each mechanism took out of the policy
gradient, per row, mean over seeds, one column per mechanism (ERC masks far more than PPO's clip: a reported
~20% against ~0.02%, so the shares are shown apart, never summed).

The figures are each run's stability figures (harness.training.summary: dual_clip_frac, entropy_mask_frac,
top_entropy_masked_frac, cov_clip_frac, kl_cov_frac), which a run has only when its loss or options have the
mechanism; the PPO clip's own shares stay in the table's clip lo / hi columns. In the report only when some
row has one of them (`--rows entropy`: GRPO-ERC, GPPO-ERC, DAPO+80/20, Clip-Cov, KL-Cov).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from harness.reports.table1 import sections
from harness.reports.table1.sections import ReportInputs, table_section

# harness.training.summary.MECHANISM_SHARES, stated here so the report does not import the training loop
# (tests/harness/reports/table1/sections/test_mechanisms_section.py keeps the two the same)
MECHANISM_SHARES = ("dual_clip_frac", "entropy_mask_frac", "top_entropy_masked_frac", "cov_clip_frac", "kl_cov_frac")

TITLE = "Tokens each masking / clipping mechanism took out (percent, mean over seeds)"


@dataclass(frozen=True)
class Shares:
    mechanisms: list[str]  # those some row has, in MECHANISM_SHARES' order
    rows: dict[str, dict[str, float]]  # row label -> mechanism -> mean share over the seeds that have it


def _present(inputs: ReportInputs) -> list[str]:
    found = {key for by_seed in inputs.results.values() for r in by_seed.values() for key in r.figures}
    return [key for key in MECHANISM_SHARES if key in found]


def applies(inputs: ReportInputs) -> bool:
    return bool(_present(inputs))


def build(inputs: ReportInputs) -> Shares:
    mechanisms = _present(inputs)
    rows = {}
    for label, by_seed in inputs.results.items():
        means = {}
        for key in mechanisms:
            values = [r.figures[key] for r in by_seed.values() if key in r.figures and r.figures[key] == r.figures[key]]
            if values:  # (NaN: a run without data for it, left out)
                means[key] = statistics.fmean(values)
        if means:
            rows[label] = means
    return Shares(mechanisms, rows)


def _text(means: dict[str, float], key: str) -> str:
    return f"{100 * means[key]:.2f}" if key in means else "–"


def table(found: Shares) -> tuple[str, list[str], list[list[str]]]:
    rows = [[label, *(_text(means, key) for key in found.mechanisms)] for label, means in found.rows.items()]
    return TITLE, ["row", *found.mechanisms], rows


def markdown_table(found: Shares) -> str:
    return sections.markdown_table(*table(found))


def csv(found: Shares) -> dict[str, dict[str, str]]:
    return {key: {label: _text(means, key) for label, means in found.rows.items()} for key in found.mechanisms}


table_section("mechanisms", 27, build, table, csv, applies)
