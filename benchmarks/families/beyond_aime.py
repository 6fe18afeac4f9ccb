"""BeyondAIME: 100 integer-answer problems at or above the difficulty of AIME's last five, from ByteDance Seed.

ByteDance-Seed/BeyondAIME on the Hugging Face Hub (2025; one split, "test"; fields problem and answer):
competition-style problems of the difficulty of AIME's problems 11-15 or above, revised by its authors to
be unique (not copies of past competition problems) and answered by an integer (some far above AIME's
0-999). It is reported beside AIME as a harder set that competition archives did not put into training data.

| name       | local file       | rows | Hub id                    |
|------------|------------------|------|---------------------------|
| beyondaime | beyondaime.jsonl | 100  | ByteDance-Seed/BeyondAIME |

Rows {"id", "problem", "answer"} like every competition-math benchmark (`math_competitions.math_benchmark`:
the boxed-answer prompt, the project's grader in both modes, maj@k's answer classes); online rows are
mapped by `math_row_from_hub` (id: the row's position). Revision: no Hub commit of this dataset could be
found from this project's offline machine, so none is pinned (`version` says so); whoever writes the
local file should record the commit they downloaded beside it (docs/benchmarks.md).
"""

from benchmarks.families.math_competitions import math_benchmark

BEYOND_AIME = math_benchmark(
    "beyondaime",
    "beyondaime.jsonl",
    100,
    "Hub main, revision unpinned (100 problems per the dataset card)",
    "ByteDance-Seed/BeyondAIME",
    "BeyondAIME (100 problems, integer answers)",
)
