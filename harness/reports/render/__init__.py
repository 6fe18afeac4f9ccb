"""How reports look: comparison tables (terminal, Markdown, CSV), static HTML pages and figures.

`table` (one row per algorithm, a column per benchmark plus Avg and the stability columns), `html`
(one self-contained page per table), `training_figures` (the paper's figures from per-step histories).
May import `harness.reports.stats` and the Table 1 rows; never a command. See docs/design.md.
"""
