"""What the result verb of a final sentence gives: a number in words, or every value of a list (round 7).

    spelled_result("hence three quarters of 40 is thirty", [("40", 26, 28)])   # ("30", 32, 38)
    spelled_result("so 7 is more than three", [("7", 3, 4)])                   # None: a comparison
    listed_values("so the roots are $x = 5$ and $x = -1$")                    # "5, -1"
    listed_values("the roots are $x = 5$ or $x = -1$")                        # None: no list, a doubt
    OTHER_ALTERNATIVE.sub(" ", "are divisible by 3 or 5")                      # the question's own "or"

A careful reader reads the subject of "X is V." as what was computed and V as the answer: in "two
thirds of 27 is eighteen" the 27 is the question's data and eighteen the value, although only 27 is
written in digits (`spelled_result`: a number in words right after the sentence's last result verb,
with nothing after it but up to two unit words, and no number in digits after it). A list of values
joined by commas and a final "and", after "are", a colon or a word of conclusion, gives every value
("the solutions are $x = 3$ and $x = -2$"): `listed_values` returns them joined by ", " (each
``x = v`` read as v, all for the same variable; another equation is a step, no value), for the
grader to compare with the reference as a list; a list where one value is asked is several answers.
`OTHER_ALTERNATIVE` finds an "or" between two values that are not the answer ("divisible by 3 or
5"), which is the question's wording, not a doubt about the bold value beside it (`benchmarks.grading.math_final`).

Read by `benchmarks.grading.math_final` (rule 3) and `benchmarks.grading.math_unboxed`; regexes
without nested quantifiers on sentences of at most a few hundred characters.
"""

import re

from benchmarks.grading.math_glyphs import spelled_numbers

# The last result verb of a sentence right before its value: "is", "are", "equals", "gives", "=".
_RESULT_END = re.compile(
    r"(?:\b(?:is|are|was|were|equals?|gives(?: us)?|get|makes|comes to|totals?|results? in|becomes)|=)\s*\Z", re.I
)
# Words that turn "is thirty" into a comparison or a step ("is thirty less than", "is thirty times").
_NOT_A_UNIT = re.compile(r"\b(?:than|more|less|fewer|times|of|if|or|not|when|before|after|minus|plus|per)\b", re.I)
_UNIT_WORDS = re.compile(r"(?:\s+[A-Za-z]+){0,2}\s*")


def spelled_result(sentence: str, values: list[tuple[str, int, int]]) -> tuple[str, int, int] | None:
    """(digits, start, end) of the number in words that ends `sentence` right after its result verb,
    when none of its `values` (numbers in digits, spans) comes after it; else None."""
    words = spelled_numbers(sentence)
    if not words:
        return None
    value, start, end = words[-1]
    if any(found[1] >= start for found in values) or not _RESULT_END.search(sentence[:start]):
        return None
    rest = sentence[end:]
    if not _UNIT_WORDS.fullmatch(rest) or _NOT_A_UNIT.search(rest):
        return None
    return value, start, end


_VALUE = r"(?:\$[^$]{1,60}\$|-?\d+(?:\.\d+)?(?:/\d+)?)"
_LIST = re.compile(
    r"(?:\bare|\bso|\btherefore|\bthus|\bhence|:)\s+(" + _VALUE + r"(?:\s*,\s*" + _VALUE + r")*,?\s+and\s+"
    + _VALUE + r")\s*\Z",
    re.I,
)  # fmt: skip
_ITEM = re.compile(_VALUE)
_SOLVED = re.compile(r"\s*([A-Za-z])\s*=\s*([^=]+)")


def listed_values(sentence: str) -> str | None:
    """The values a final sentence lists after "are", a colon or a word of conclusion, joined by ", "
    ("5, -1"), or None when it ends on no such list."""
    found = _LIST.search(sentence)
    if found is None:
        return None
    values, names = [], set()
    for item in _ITEM.findall(found.group(1)):
        item = item.strip("$").strip()
        solved = _SOLVED.fullmatch(item)
        if solved is not None:  # "x = 5": the value of the one variable
            names.add(solved.group(1))
            item = solved.group(2).strip()
        elif "=" in item:  # "$7^2 = 49$ and $4 \\cdot 7 = 28$": steps of a check, not values
            return None
        values.append(item)
    return ", ".join(values) if len(names) <= 1 and all(values) else None


# An alternative between two values that are not the answer: "divisible by 3 or 5", "either 4 or 7".
OTHER_ALTERNATIVE = re.compile(
    r"(?<![\w*.])(?:either\s+)?\$?-?\d+(?:\.\d+)?\$?(?:\s*,\s*\$?-?\d+(?:\.\d+)?\$?)*,?\s+(?:or|and/or)\s+"
    r"\$?-?\d+(?:\.\d+)?\$?(?![\w*])"
)
