"""The grader's verdict, and step 1 of the check that gives it without sympy (the fast path).

    fast_verdict("025", "25")          # Verdict(True, True, "025", None): the same integer
    fast_verdict("\\frac12", "0.5")    # None: the full check (`benchmarks.grading.math_full_check`) decides

A `Verdict` holds both grading modes, the answer extracted and the reason it was refused.
`fast_verdict` compares an integer answer with an integer reference as digit strings (any length,
never through ``int()``, which Python refuses past 4300 digits, or sympy) and credits an answer
written exactly as the reference (up to spaces); anything else is left to the full check. Step
order and the modes: `benchmarks.grading.math_check`.
"""

import functools
import re
from typing import NamedTuple

from benchmarks.grading.math_extracted import Extracted

_INTEGER = re.compile(r"[+-]?\d+(?:\.0*)?", re.ASCII)  # linear; ASCII digits only (others: `math_glyphs`)


def _integer_digits(text: str) -> str | None:
    """'-0025.00' -> '-25', '-0' -> '0'; None when `text` is not an integer. Linear, no int()."""
    if text.isascii() and text.isdigit():  # the common case, without a regex
        return text.lstrip("0") or "0"
    if not _INTEGER.fullmatch(text):
        return None
    digits = text.lstrip("+-").split(".")[0].lstrip("0") or "0"
    return "-" + digits if text[0] == "-" and digits != "0" else digits


class Verdict(NamedTuple):
    """A completion graded in both modes: `lenient` (any equal value that is an answer), `strict`
    (also worked out, in the form asked for; strict credit implies lenient credit), the answer
    `extracted` (None: the completion gives none) and the `reason` it was refused in strict or both
    modes (None when strict credits it, or when it is simply wrong or missing)."""

    lenient: bool
    strict: bool
    extracted: Extracted | None
    reason: str | None


_new_verdict = tuple.__new__  # a Verdict without NamedTuple's Python-level __new__ (the hot path)


def fast_verdict(answer: str | None, reference: str | None) -> Verdict | None:
    """Integer answer vs integer reference as digit strings, or an answer identical to the reference
    (up to spaces); no answer, or no reference, is False. None when the full check is needed."""
    if answer is None or reference is None:
        return _new_verdict(Verdict, (False, False, answer, None))
    if getattr(answer, "pending", False):
        return None  # other committed answers or qualifying words: the full check reads them (`full_verdict`)
    reference, reference_digits, reference_spaceless = _reference_forms(reference)
    if reference_digits is not None:
        candidate_digits = _integer_digits(answer.strip().rstrip(".").strip())
        if candidate_digits is not None:
            same = candidate_digits == reference_digits
            return _new_verdict(Verdict, (same, same, answer, None))
    if reference and (answer == reference or "".join(answer.split()) == reference_spaceless):
        return _new_verdict(Verdict, (True, True, answer, None))
    return None


@functools.lru_cache(maxsize=4096)
def _reference_forms(reference: str) -> tuple[str, str | None, str]:
    """A reference as `fast_verdict` compares it: stripped, its integer digits (None: no integer) and
    without spaces. Pure, and a batch grades each reference many times (one per sample)."""
    reference = reference.strip()
    return reference, _integer_digits(reference), "".join(reference.split())
