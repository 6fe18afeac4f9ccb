"""Which branch of a TeX conditional is typeset: the rest is hidden from a reader.

    unselected_branches("\\iftrue A \\else B \\fi")   # the spans of "\\iftrue", "\\else B \\fi"

Read by `benchmarks.grading.math_hidden`, which blanks these spans. Conditions that can be read
here: ``\\iftrue``, ``\\iffalse``, ``\\if``/``\\ifx``/``\\ifcat`` on two tokens, ``\\ifnum`` on two
integers and ``\\ifodd``; any other (``\\ifdefined``, ``\\ifmmode``) hides the whole conditional.
Linear in the text (one regex pass without nested quantifiers).
"""

import re

# TeX conditionals: only the branch the condition selects is typeset (MathJax typesets none of them).
_CONDITIONAL = re.compile(
    r"\\if(true|false|num|dim|odd|x|cat|case|defined|csname|mmode|vmode|hmode|inner|void|hbox|vbox|eof|fontchar)?"
    r"(?![A-Za-z])(.*?)(?:\\else(?![A-Za-z])(.*?))?(?:\\fi(?![A-Za-z])|\Z)",
    re.DOTALL,
)
_NUMBER_TEST = re.compile(r"\s*(-?\d+)\s*([<=>])\s*(-?\d+)")
_TOKEN = re.compile(r"\s*(\\[A-Za-z]+|\S)")


def unselected_branches(text: str) -> list[tuple[int, int]]:
    """What TeX conditionals do not typeset: the condition and the branch it does not select
    (``\\iftrue A \\else B \\fi`` shows A; ``\\if01``, ``\\ifnum 0=1``, ``\\ifodd 2`` are false), and
    the whole conditional where the condition cannot be read here (``\\ifdefined``, ``\\ifmmode``)."""
    spans = []
    for found in _CONDITIONAL.finditer(text):
        kind, body_start = found.group(1) or "", found.start(2)
        value, condition_end = _condition(kind, text, body_start, found.end(2))
        if value is None:
            spans.append((found.start(), found.end()))
            continue
        shown = (condition_end, found.end(2)) if value else (found.start(3), found.end(3))
        if shown[0] < 0:  # false with no \\else: nothing is shown
            spans.append((found.start(), found.end()))
        else:
            spans += [(found.start(), shown[0]), (shown[1], found.end())]
    return [span for span in spans if span[1] > span[0]]


def _condition(kind: str, text: str, start: int, end: int) -> tuple[bool | None, int]:
    """(the condition's value or None when unknown, where the branch it guards begins)."""
    if kind in ("true", "false"):
        return kind == "true", start
    if kind in ("", "x", "cat"):  # two tokens compared
        first = _TOKEN.match(text, start, end)
        second = None if first is None else _TOKEN.match(text, first.end(), end)
        if second is None:
            return None, start
        return first.group(1) == second.group(1), second.end()
    if kind == "num":
        test = _NUMBER_TEST.match(text, start, end)
        if test is None:
            return None, start
        a, relation, b = int(test.group(1)), test.group(2), int(test.group(3))
        return (a < b if relation == "<" else a > b if relation == ">" else a == b), test.end()
    if kind == "odd":
        number = re.match(r"\s*(-?\d+)", text[start:end])
        return (None, start) if number is None else (int(number.group(1)) % 2 == 1, start + number.end())
    return None, start
