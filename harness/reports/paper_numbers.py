"""CE-GPPO's reported Table 1 (arXiv 2509.20712), printed beside our rows on the `paper` profile.

Columns: AIME24, AIME25, HMMT25, MATH500, AMC23, Avg (avg@k in percent, as reported). The
paper's CE-GPPO row is beta1 0.5 for the 1.5B model and 0.75 for the 7B model (beta2 1).
"""

from __future__ import annotations

COLUMNS = ("aime24", "aime25", "hmmt25", "math500", "amc23", "Avg")
REPORTED = {
    "1.5B": {
        "base": (29.2, 24.1, 13.1, 86.0, 73.7, 45.2),
        "GRPO": (33.4, 28.1, 16.6, 88.3, 79.3, 49.1),
        "DAPO": (40.0, 28.4, 19.17, 90.0, 84.4, 52.4),
        "CE-GPPO(0.5,1)": (42.0, 33.9, 21.6, 91.0, 85.9, 54.9),
    },
    "7B": {
        "base": (54.5, 39.1, 26.2, 93.6, 90.6, 60.8),
        "GRPO": (55.3, 40.3, 24.5, 93.7, 88.8, 60.5),
        "DAPO": (59.7, 48.7, 25.6, 95.1, 93.4, 64.5),
        "CE-GPPO(0.75,1)": (66.0, 51.4, 30.5, 95.6, 93.8, 67.5),
    },
}


def paper_rows(model: str) -> dict[str, tuple[float, ...]]:
    """Row label -> the reported values, in COLUMNS order."""
    if model not in REPORTED:
        raise ValueError(f"no reported table for model {model!r}; reported: {', '.join(REPORTED)}")
    return REPORTED[model]
