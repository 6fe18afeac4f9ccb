"""The 2025-2026 competitions MathArena publishes: AIME 2026, HMMT Feb 2026, HMMT Nov 2025, BRUMO 2025, CMIMC 2025.

The suite `fresh` (benchmarks.benchmark_registry) holds these five. They are the contamination control
beside AIME 2024/2025 and HMMT Feb 2025: MathArena (Balunović et al. 2025, arXiv 2505.23281) evaluates
models on competitions held after their release and reports strong signs of contamination in AIME 2024,
whose problems and solutions have been on the web (and in training corpora) since 2024. A problem set
published after a model's training data was collected cannot have been memorised, so a gain that holds
on these sets is a gain in reasoning, not recall. See docs/benchmarks.md.

Rows, prompt, grading and metrics are those of every competition-math benchmark
(`math_competitions.math_benchmark`): {"id", "problem", "answer"}, the boxed-answer instruction, the
project's math grader in its lenient (`acc`, the headline) and strict (`acc_strict`) modes, maj@k's answer
classes by the same grader. Offline each reads its file from $HARNESS_BENCHMARK_DIR (or --data-dir);
online the MathArena Hub dataset (its only split, "train"; fields problem_idx, problem, answer, mapped by
`math_row_from_hub`).

| name       | local file        | rows | Hub id                  | competition date |
|------------|-------------------|------|-------------------------|------------------|
| aime26     | aime26.jsonl      | 30   | MathArena/aime_2026     | 2026-02-06       |
| hmmt_feb26 | hmmt_feb26.jsonl  | 33   | MathArena/hmmt_feb_2026 | 2026-02-14       |
| hmmt_nov25 | hmmt_nov25.jsonl  | 30   | MathArena/hmmt_nov_2025 | 2025-11-08       |
| brumo25    | brumo25.jsonl     | 30   | MathArena/brumo_2025    | 2025-04-08       |
| cmimc25    | cmimc25.jsonl     | 40   | MathArena/cmimc_2025    | 2025-07-29       |

Row counts and dates are those of MathArena's own competition configs (`n_problems`, `date` in
configs/competitions/<family>/<name>.yaml of github.com/eth-sri/matharena at commit
e92766038a80eee227589f5ea688004240bca8e0). Revisions: no Hub commit of these datasets could be found
from this project's offline machine (their data is no longer in the GitHub repository, which reads
them from the Hub), so none is pinned: `version` says "unpinned" and results.json carries it. Whoever
writes the local files should record the Hub commit they downloaded (`huggingface_hub.dataset_info(id).sha`)
beside them, as shared/benchmarks/manifest.json does for the others.
"""

from benchmarks.families.math_competitions import math_benchmark

MATHARENA_CONFIGS = "eth-sri/matharena@e92766038a80eee227589f5ea688004240bca8e0"
UNPINNED = f"Hub main, revision unpinned (problem count from {MATHARENA_CONFIGS})"

FRESH_BENCHMARKS = (
    math_benchmark("aime26", "aime26.jsonl", 30, UNPINNED, "MathArena/aime_2026", "AIME 2026 I and II"),
    math_benchmark("hmmt_feb26", "hmmt_feb26.jsonl", 33, UNPINNED, "MathArena/hmmt_feb_2026", "HMMT February 2026"),
    math_benchmark("hmmt_nov25", "hmmt_nov25.jsonl", 30, UNPINNED, "MathArena/hmmt_nov_2025", "HMMT November 2025"),
    math_benchmark("brumo25", "brumo25.jsonl", 30, UNPINNED, "MathArena/brumo_2025", "BRUMO 2025"),
    math_benchmark("cmimc25", "cmimc25.jsonl", 40, UNPINNED, "MathArena/cmimc_2025", "CMIMC 2025"),
)
