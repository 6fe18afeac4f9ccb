"""Table 1's masking / clipping section: each mechanism's share of tokens, averaged over seeds by hand; absent
where no row has a mechanism beyond PPO's clip."""

import math

from harness.profiles import PROFILES
from harness.reports.render.table import SeedResult
from harness.reports.table1.rows import ROWS
from harness.reports.table1.sections import ReportInputs
from harness.reports.table1.sections.mechanisms_section import MECHANISM_SHARES, applies, build, csv, markdown_table


def inputs(results):
    rows = [r for r in ROWS if r.label in results]
    return ReportInputs(PROFILES["tiny"], rows, [0, 1], "GRPO", results, {}, {}, ["arith"], [], {}, None)


def seed(**figures):
    return SeedResult({"arith": {"1": 1.0}}, {"clip_frac_low": 0.01, **figures})


def test_the_shares_are_the_training_summarys_own():
    from harness.training.summary import MECHANISM_SHARES as OWN

    assert MECHANISM_SHARES == OWN


def test_each_mechanism_is_a_column_of_its_own_mean_over_seeds():
    results = {
        "GRPO": {0: seed(), 1: seed()},  # PPO's clip only: a row without shares
        "GRPO-ERC": {0: seed(entropy_mask_frac=0.20, dual_clip_frac=0.001), 1: seed(entropy_mask_frac=0.24)},
        "DAPO+80/20": {0: seed(top_entropy_masked_frac=0.8), 1: seed(top_entropy_masked_frac=math.nan)},
    }
    found = build(inputs(results))
    assert found.mechanisms == ["dual_clip_frac", "entropy_mask_frac", "top_entropy_masked_frac"]
    assert found.rows["GRPO-ERC"]["entropy_mask_frac"] == 0.22  # (0.20 + 0.24) / 2
    assert found.rows["GRPO-ERC"]["dual_clip_frac"] == 0.001  # the one seed that has it
    assert found.rows["DAPO+80/20"] == {"top_entropy_masked_frac": 0.8}  # a NaN seed left out
    assert "GRPO" not in found.rows
    table = markdown_table(found)
    assert "| GRPO-ERC | 0.10 | 22.00 | – |" in table and "| DAPO+80/20 | – | – | 80.00 |" in table
    assert csv(found)["entropy_mask_frac"] == {"GRPO-ERC": "22.00", "DAPO+80/20": "–"}


def test_no_section_without_a_mechanism_beyond_the_clip():
    assert not applies(inputs({"GRPO": {0: seed(), 1: seed()}}))
