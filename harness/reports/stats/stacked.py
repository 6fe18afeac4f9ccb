"""The paired test of harness.reports.stats.crossed on many tables at once (the calibration's workhorse).

A stack of T difference blocks D [T, S, n] (one benchmark) goes through the very terms and draws the
reports use (`paired_terms`, `error_scales`: every mean square an array over the tables), so each table's
p-value is the one `accuracy.paired_difference` prints, to rounding; the tests check it table by table.

With 3+ seeds the p-values are the Welch-Aspin test's (crossed.calibrated), as the reports'.

Coverage needs no root finding: the interval est +- half holds the truth t exactly when the test's
two-sided tail at |est - t| is at least 1 - level (the half-width is where that tail equals 1 - level),
i.e. when the p-value of the hypothesis "Delta = t" is at least 1 - level. Cutting the interval to
[-1, 1] changes nothing for a truth inside the scale.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from harness.reports.stats.crossed import calibrated, error_scales, paired_terms
from harness.reports.stats.welch_aspin import p_values as welch_aspin_p

CHUNK = 256  # tables per pass: [CHUNK, DRAWS] arrays of 4 MB


def p_values(blocks: np.ndarray, hypothesis: float = 0.0) -> np.ndarray:
    """[T] two-sided p-values of Delta = `hypothesis` for the paired difference blocks [T, S, n]."""
    out = np.empty(len(blocks))
    for start in range(0, len(blocks), CHUNK):
        chunk = blocks[start : start + CHUNK]
        terms = paired_terms([chunk])
        variance = sum(t.value() for t in terms)
        distance = np.abs(chunk.mean(axis=(-2, -1)) - hypothesis)
        paired = calibrated(terms)
        with np.errstate(divide="ignore", invalid="ignore"):
            tail = 2 * ndtr(-distance[:, None] / error_scales(terms)).mean(axis=1)
            if paired is not None:  # 3+ seeds: Welch-Aspin critical values (the mixture's below 0.01), as crossed
                tail = welch_aspin_p(distance, *paired, tail)
        # no variance at all: the interval is the point (interval() answers 1 at the point, 0 elsewhere)
        out[start : start + CHUNK] = np.where(variance > 0, tail, (distance == 0).astype(float))
    return out


def covers(blocks: np.ndarray, truth: float, level: float = 0.95) -> np.ndarray:
    """[T] whether each table's `level` interval holds `truth` (module docstring)."""
    return p_values(blocks, truth) >= 1 - level


def holm(p: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values along the last axis (as accuracy.holm, for a [T, m] array)."""
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=-1) * (m - np.arange(m))
    ranked = np.minimum(1.0, np.maximum.accumulate(ranked, axis=-1))
    adjusted = np.empty_like(p)
    np.put_along_axis(adjusted, order, ranked, axis=-1)
    return adjusted
