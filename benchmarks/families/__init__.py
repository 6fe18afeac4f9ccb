"""One module per benchmark family: where its rows come from, its prompt, its grader, its metrics.

`math_competitions` (AIME 2024/2025, HMMT Feb 2025, MATH-500, AMC 2023), `arithmetic` (the seeded
synthetic task), `humaneval`, `livecodebench` (code, graded in the sandbox), `ifeval` (with its
offline `nltk_punkt` data). `benchmarks.benchmark_registry` lists them; adding a benchmark is a module
here plus its registry line. May import `benchmarks.benchmark`, `benchmarks.grading`,
`benchmarks.sandbox` and `harness.common`.
"""
