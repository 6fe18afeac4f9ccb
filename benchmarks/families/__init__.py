"""One module per benchmark family: where its rows come from, its prompt, its grader, its metrics.

`math_competitions` (AIME 2024/2025, HMMT Feb 2025, MATH-500, AMC 2023, and `math_benchmark`, the
recipe of every competition-math benchmark), `matharena` (the 2025-2026 competitions: AIME 2026, HMMT
Feb 2026, HMMT Nov 2025, BRUMO 2025, CMIMC 2025), `beyond_aime`, `olympiadbench` (its numeric subset),
`minerva_math`, `arithmetic` (the seeded synthetic task), `humaneval`, `livecodebench` (code, graded
in the sandbox), `ifeval` (with its offline `nltk_punkt` data). `benchmarks.benchmark_registry` lists
them; adding a benchmark is a module here plus its registry line. May import `benchmarks.benchmark`,
`benchmarks.grading`, `benchmarks.sandbox` and `harness.common`.
"""
