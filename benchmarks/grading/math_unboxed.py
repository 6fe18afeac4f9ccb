"""Rules 2 to 4 of the answer rules: the answer of a completion without a box, or whose box was taken back.

    statement_answer("... The final answer is $1000$.")     # Extracted("1000", rule="statement")
    whole_answer("52")                                      # Extracted("52", rule="whole")
    conclusion_answer("... 67 and 69, which gives 136.")    # Extracted("136", rule="conclusion")

An answer statement ending the completion (`statement_answer`), the completion that is nothing but
an answer (`whole_answer`), a last sentence that ends on a result (`conclusion_answer`), a last line
that concludes on one value (`final_line_answer`, `benchmarks.grading.math_conclusion`) and an
unboxed final statement (`final_statement_answer`, `benchmarks.grading.math_final`); before the
conclusion, a last sentence that lists every value (`listed_answer`: "so the roots are $x = 5$ and
$x = -1$.", `benchmarks.grading.math_result`). Which of them
applies, and in which order, is `benchmarks.grading.math_answer.extract`'s to decide.

Bounds: the statement is looked for only in the last STATEMENT_CHARS characters and the conclusion
in the last CONCLUSION_CHARS, with regexes that have no nested quantifiers.
"""

import re

from benchmarks.grading.math_asked import unit_after
from benchmarks.grading.math_boxes import last_box
from benchmarks.grading.math_conclusion import concluding_line
from benchmarks.grading.math_extracted import Extracted, make_extracted
from benchmarks.grading.math_final import (
    NOT_A_CONCLUSION,
    answer_text,
    doubtful,
    final_answer,
    name_qualifier,
    unit_qualifier,
)
from benchmarks.grading.math_result import listed_values
from benchmarks.grading.math_retraction import retracted
from benchmarks.grading.math_scope import denied_before, hinted

STATEMENT_CHARS = 600  # the tail searched for an answer statement
WHOLE_CHARS = 200  # the longest completion that can be an answer by itself
CONCLUSION_CHARS = 300  # the tail searched for a concluding sentence

_STATEMENT = re.compile(  # "The final answer is", "Answer:", "Answer —", "**Final Answer**" ending its line
    r"(?:\bthe\s+)?(?:final\s+answer|\banswer)(?:\s|\*)*(?:is\b|:|=|—|–|(?=\n))(?:\s|\*|:|#)*",
    re.IGNORECASE,
)
_CLOSING = re.compile(r"(?:[\s.!*]|I hope (?:it is correct|this helps|it helps)[.!]?)*\Z")  # may follow the answer
# Rule 4: a result verb, then a number (and unit words) with its full stop, or a closed math span.
_CONCLUSION = re.compile(
    r"(?:=|\bis|\bequals|\bresults? in|\bgives(?: us)?|\bget)\s*"
    r"(?:\$([^$]{1,200})\$|(-?\\?\$?\d[\d,]*(?:\.\d+)?(?:/\d+)?(?:\\?%)?)(?:\s+[A-Za-z]+){0,2})\Z"
)
_EQUATION_SPAN = re.compile(r"\$([^$=]{1,200})=([^$=<>]{1,100})\$\Z")  # "... check: $3 \cdot 4 = 12$."
_LONG_INTEGER = re.compile(r"[+-]?\d+\.?")
_SENTENCE_END = re.compile(r"(?<!\\)\.(?=\s)|\n")  # a full stop before a space (not "3.5"), or a new line
_CHECK = re.compile(
    r"\s*(?:\*\*)?(?:check(?:ing)?|verif(?:y|ication|ying)|sanity check|double[- ]check"
    r"|let(?:'s| me| us) (?:check|verify)|indeed|this (?:checks out|is correct)|substituting back)\b",
    re.IGNORECASE,
)


def statement_answer(text: str) -> Extracted | None:
    """Rule 2: the completion ends with an answer statement."""
    tail_start = max(0, len(text) - STATEMENT_CHARS)
    statements = list(_STATEMENT.finditer(text, tail_start))
    if not statements:
        return None
    last = statements[-1]
    rest = text[last.end() :]
    closing = _CLOSING.search(rest)  # always matches, possibly empty
    answer = answer_text(rest[: closing.start()])
    if answer is None:
        answer = _confirmed_answer(rest)
    if answer is None:
        return None
    spans = (text[last.start() :].strip(),)
    return make_extracted(answer, "statement", spans, qualifiers=unit_qualifier(rest[: closing.start()]))


def _confirmed_answer(rest: str) -> str | None:
    """The answer of "X. Check: <a check that confirms X>": a statement followed by a verification
    that neither retracts it nor gives another answer."""
    end = _SENTENCE_END.search(rest)
    if end is None:
        return None
    check = rest[end.end() :]
    if not _CHECK.match(check) or retracted(check) or last_box(check) is not None:
        return None
    return answer_text(rest[: end.start()])


def whole_answer(text: str) -> Extracted | None:
    """Rule 3: the completion is nothing but an answer."""
    stripped = text.strip()
    if _LONG_INTEGER.fullmatch(stripped):  # an integer of any length ("7" * 5000): linear to check
        return make_extracted(stripped.rstrip("."), "whole", (stripped,))
    if len(stripped) > WHOLE_CHARS:
        return None
    answer = answer_text(stripped)
    if answer is None:
        return None
    qualifiers = unit_qualifier(stripped) + name_qualifier(stripped)  # "Perimeter $= 26$": checked against the question
    return make_extracted(answer, "whole", (stripped,), qualifiers=qualifiers)


def conclusion_answer(text: str) -> Extracted | None:
    """Rule 4: the last sentence ends on a result."""
    tail = text[-CONCLUSION_CHARS:]
    closing = _CLOSING.search(tail).start()
    found = _CONCLUSION.search(tail, 0, closing)
    if found is None:
        equation = _EQUATION_SPAN.search(tail, 0, closing)
        if equation is None or not tail[closing:].lstrip(" *").startswith((".", "!")):
            return None
        sentence_start = max(tail.rfind(". ", 0, equation.start()), tail.rfind("\n", 0, equation.start())) + 1
        if _denied(tail[sentence_start : equation.start()]):  # "..., but we rule out $x = 5$."
            return None
        return make_extracted(equation.group(2).strip(), "conclusion", (tail[sentence_start:].strip(),))
    if found.group(2) is not None and not tail[closing:].lstrip(" *").startswith((".", "!")):
        return None  # a number with no full stop after it: the sentence may go on ("so 9" -> "so 90")
    answer = (found.group(1) or found.group(2)).strip().rstrip(".").strip()
    sentence_start = max(tail.rfind(". ", 0, found.start()), tail.rfind("\n", 0, found.start())) + 1
    if _denied(tail[sentence_start : found.start(found.lastindex)]):  # "It cannot be 12."
        return None
    unit = unit_after(tail[found.end(found.lastindex) : closing])  # "is 250 mm long.": the unit travels with it
    qualifiers = (() if unit is None else ("unit:" + unit,)) + name_qualifier(tail[sentence_start : found.end()])
    return (
        make_extracted(answer, "conclusion", (tail[sentence_start:].strip(),), qualifiers=qualifiers)
        if answer
        else None
    )


def _denied(before: str) -> bool:
    """Whether the clause that ends at a concluding value denies it (`benchmarks.grading.math_scope`)."""
    return hinted(before) and denied_before(before)


def listed_answer(text: str) -> Extracted | None:
    """Rule 4, a list: the last sentence, with its full stop and no doubt, lists its values joined by
    "and" ("so the roots are $x = 5$ and $x = -1$."): all of them, joined by ", "."""
    tail = text[-CONCLUSION_CHARS:]
    closing = _CLOSING.search(tail).start()
    if not tail[closing:].lstrip(" *").startswith("."):
        return None
    sentence = _SENTENCE_END.split(tail[:closing])[-1]
    if " and " not in sentence or doubtful(sentence) or NOT_A_CONCLUSION.match(sentence.lstrip(" *")):
        return None  # a doubt, or a check ("Checking: $7^2 = 49$ and $4 \\cdot 7 = 28$.")
    values = listed_values(sentence)
    return None if values is None else make_extracted(values, "conclusion", (sentence.strip(),))


def final_statement_answer(seen: str) -> Extracted | None:
    """Rule 5: an unboxed final statement or last line (`benchmarks.grading.math_final.final_answer`)."""
    final = final_answer(seen)
    if final is None:
        return None
    return make_extracted(final[0], "conclusion", (seen[-300:].strip(),), qualifiers=final[1])


def final_line_answer(seen: str) -> Extracted | None:
    """Rule 6: a last line that concludes on one value (`benchmarks.grading.math_conclusion.concluding_line`)."""
    answer = concluding_line(seen)
    return None if answer is None else make_extracted(answer, "conclusion", (seen.rstrip().rsplit("\n", 1)[-1],))
