"""What a completion commits to: every answer of its final part, with negated and first-guess boxes set aside.

    commitment(seen, boxes, scan)       # (answer boxes, other committed answers, qualifiers) or None: no answer

A reader credits the one answer a completion commits to, not its last box. `commitment` reads the
*final part* (the paragraph holding the answer's box, with the paragraph before it when the box
stands alone on its line, to the end of the text) and collects:
- every other closed box there; a box inside another box means no answer (``\\boxed{13 \\boxed{12}}``),
  unless it is the other's whole content (``\\boxed{\\boxed{36}}``: one answer framed twice);
- every answer statement there: "the (final | correct) answer / count / total / result / value is X",
  "Final answer: X", "Final: X", a bold ``**X**`` on a line of its own;
- an alternative offered right after the answer's box, in its clause: "(or possibly 9 if ...)",
  ", or 72", "— though 9 is also plausible"; or later, in words that offer it: "it could also be 4 or 7",
  "another valid answer is 9", "12 is also possible".
A box is *negated* when its own clause denies it, before or after it (`benchmarks.grading.math_scope`:
negating particles, predicates of falsity or rejection, by clause scope), and *a first guess* when
the clause before it says "first guessed", "initially", "at first", "might think".
Neither is committed to: a negated or first-guess answer box hands its place to the last committed
box of the final part, and with none left the completion has no answer. "either" before the answer
box in its sentence is no commitment either. A withdrawn box whose place a concluding last
sentence takes (`benchmarks.grading.math_final.final_statement`) has that sentence's value. The
other committed answers are returned as text; the grader credits only when each of them equals the
answer in value (`benchmarks.grading.math_full_check`),
so ``\\boxed{12}`` followed by "The final answer is 13." is refused, and by "The final answer is 12."
credited. The words around the answer travel with it as qualifiers: a bound or an estimate in its
clause ("at most", "or fewer", "roughly") and a unit word right after its box, which the grader
checks against the question. A final part that speaks to the grader commits to nothing. Everything
here is linear in the final part, which is at most FINAL_CHARS long.
"""

import re

from benchmarks.grading.math_address import addresses_grader
from benchmarks.grading.math_asked import subject_quantity, unit_after
from benchmarks.grading.math_final import final_statement
from benchmarks.grading.math_scope import (
    CLAUSE_CHARS,
    clause_before,
    denied_after,
    denied_before,
    hinted,
    qualifier_after,
    qualifier_before,
)

FINAL_CHARS = 600  # the longest final part read before the answer's first box
AFTER_CHARS = 2_000  # the text after the answer's box read for other answers
ALONE_CHARS = 20  # a paragraph with fewer characters than this besides its box is the box alone
MAX_FINAL_BOXES = 12  # more boxes than this in the final part commit to none of them

Box = tuple[int, int, int, int]  # as benchmarks.grading.math_boxes': start, content start, content end, end

_FIRST_GUESS = re.compile(
    r"\b(?:first (?:guess(?:ed)?|thought|got|wrote|answer)|initially|at first|originally|guessed"
    r"|(?:might|may|would) (?:think|guess|say|expect)|tempting|naive(?:ly)?)\b",
    re.IGNORECASE,
)
# An appositive after the box that calls it a mistake: "$\\boxed{16}$, a mistake", "(my error)".
_NEGATED_AFTER = re.compile(r"\s*\$?\s*(?:\(|,)?\s*(?:a |my )?(?:mistake|error)\b", re.IGNORECASE)
_EITHER = re.compile(r"\beither\b", re.IGNORECASE)
_VALUE = r"(\$[^$\n]{1,80}\$|\\\(.{1,80}?\\\)|[-\u2212]?\d[\d,]*(?:\.\d+)?(?:/\d+)?)"
_NOUNS = ("answer", "count", "total", "result", "value", "final")  # "the (final | correct) answer is X", "Final: X"
_STATEMENT_AT = re.compile(
    r"(?:answer|count|total|result|value|final)\b\**\s*(?:is|=|:|equals|is equal to|comes to|works out to)\s*"
    r"(?:\*\*\s*)?" + _VALUE,
    re.IGNORECASE,
)
_BOLD_LINE = re.compile(r"^[ \t]*\*\*\s*" + _VALUE + r"\s*\*\*[ \t.]*$", re.MULTILINE)
_CONCLUDING_CLAUSE = re.compile(r",\s*(?:so|therefore|thus|hence)\b(?!.*,\s*(?:so|therefore|thus|hence)\b)", re.I)
_CONCLUDING = re.compile(r"\b(?:so|therefore|thus|hence|in total|altogether|in all)\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.^_{\\])[-\u2212]?\d+(?:\.\d+)?(?:/\d+)?(?![\w.^_}])")
_DOUBTFUL = re.compile(
    r"\b(?:not|never|no|if|maybe|probably|perhaps|or|either|about|approximately)\b|n't\b|\?", re.IGNORECASE
)
_CONCLUDING_VERB = re.compile(  # a verb of result: being, having, measuring, costing, a change by an amount
    r"\b(?:is|are|was|were|measures?|has|have|equals?|totals?|comes to|makes|costs?|weighs?|takes?|took|needs?"
    r"|contains?|holds?|remains?|yields?|reaches|reached|becomes|became|rose|fell|grew|[a-z]+ed by|will (?:be|take|cost"
    r"|need|have))\b",
    re.I,
)
# A negated box replaced right after it: "The answer is not $\\boxed{-3}$; it is $3$."
_REPLACED_BY = re.compile(r"\$?\s*[;,.]?\s*(?:but |rather |instead )?(?:it(?:'s| is)|the answer is)\s*" + _VALUE, re.I)
# An alternative offered right after the answer's box, in its clause: "(or possibly 9 if ...)", ", or 72",
# "(possibly 11 ...)", "— though 9 is also plausible".
_ALTERNATIVE = re.compile(
    r"[\s$]*[(,;—–-]*\s*(?:or|alternatively|possibly|perhaps|maybe|though|although|otherwise)\s+"
    r"(?:[A-Za-z]+\s+){0,2}" + _VALUE,
    re.IGNORECASE,
)
_SENTENCE_START = re.compile(r"(?:[.!?](?=\s)|\n)\s*")
# Another value offered as an answer anywhere after the box: "it could also be 4 or 7", "another valid answer is
# 9", "12 is also possible", "alternatively, 8"; each is another committed answer (OFFERED_CHARS after the box).
_OFFERED = re.compile(
    r"\b(?:(?:could|might|may|can|would) (?:also|equally|just as well|alternatively|instead) be|alternatively,?"
    r"(?: (?:it is|it's|the answer is|we get))?|another (?:possible |valid |acceptable |correct |plausible )?"
    r"(?:answer|value|option|candidate|possibility|reading) (?:is|would be|could be|might be|:))\s*" + _VALUE
    + r"|" + _VALUE + r"\s*(?:is|are|would be|could be) (?:also|equally) (?:possible|valid|acceptable|correct"
    r"|plausible|an? (?:possible |valid |acceptable )?answer)",
    re.IGNORECASE,
)  # fmt: skip
OFFERED_CHARS = 400


# The fast reading of `commitment`, as triggers for `benchmarks.grading.math_answer`'s gate: nothing but
# CLOSING after the box, and in the FINAL_CHARS before it neither another box ("box") nor a
# character of VALUE_CHARS (`may_state`) nor one outside ASCII (a note in another language) nor a cue
# word in its clause (`benchmarks.grading.math_scope.hinted`).
CLOSING = " .!\n$)"
VALUE_CHARS = "0123456789$*\u2212"


def may_state(text: str) -> bool:
    """Whether `text` could hold an answer statement's value or a bold line: a character of
    VALUE_CHARS (a digit, ``$``, ``*`` or a Unicode minus; single-character scans, unrolled: the
    cheapest test there is)."""
    return (
        "0" in text
        or "1" in text
        or "2" in text
        or "3" in text
        or "4" in text
        or "5" in text
        or "6" in text
        or "7" in text
        or "8" in text
        or "9" in text
        or "$" in text
        or "*" in text
        or "\u2212" in text
    )


def _final_start(seen: str, first: int) -> int:
    """Where the final part begins: the paragraph of the box at `first`, or the one before it too
    when the box stands alone (paragraphs end at a blank line)."""
    floor = max(0, first - FINAL_CHARS)
    last = seen.rfind("\n\n", floor, first)
    if last < 0:
        return floor
    if len(seen[last:first].replace("$", "").replace("\\[", "").strip()) >= ALONE_CHARS:
        return last + 2
    before = seen.rfind("\n\n", floor, last)
    return floor if before < 0 else before + 2


def _set_aside(seen: str, start: int, box: Box, end: int | None = None) -> bool:
    """A box (or the boxes of one answer, from `box` to `end`) that its clause denies
    (`benchmarks.grading.math_scope`), that is only a first guess, or called a mistake after it."""
    before = seen[max(start, box[0] - CLAUSE_CHARS) : box[0]]
    after = box[3] if end is None else end
    if hinted(before) and (denied_before(before) or _FIRST_GUESS.search(clause_before(before))):
        return True
    tail = seen[after : after + CLAUSE_CHARS]
    return hinted(tail) and denied_after(tail) or _NEGATED_AFTER.match(seen, after) is not None


def _statements(final: str, lowered: str) -> list[str]:
    """The values of the answer statements and bold final values of the final part (module docstring);
    `lowered`: `final` in lower case, at the same positions."""
    values = []
    for noun in _NOUNS:
        position = lowered.find(noun)
        while position >= 0:
            found = _STATEMENT_AT.match(final, position)
            if found is not None:
                values.append((position, found.group(1)))
            position = lowered.find(noun, position + 1)
    if "**" in final:
        values += [(found.start(), found.group(1)) for found in _BOLD_LINE.finditer(final)]
    return [value for _, value in sorted(values)]


# LaTeX spacing (``\\,``, ``\\;``, ``\\quad``, ``~``): it shows nothing.
_SPACING = ("\\qquad", "\\quad", "\\,", "\\;", "\\:", "\\!", "\\ ", "~", " ", "\n", "\t")


def _without_edge_spacing(text: str) -> str:
    """`text` without the spacing at either end (index moves, no copies: linear)."""
    start, end = 0, len(text)
    moved = True
    while moved and start < end:
        moved = False
        for mark in _SPACING:
            if text.startswith(mark, start, end):
                start, moved = start + len(mark), True
            if (
                end - start >= len(mark)
                and text.endswith(mark, start, end)
                and text[end - len(mark) - 1 : end - len(mark)] != "\\"
            ):
                end, moved = end - len(mark), True
    return text[start:end]


def _drawn_twice(seen: str, outer: Box, final: list[Box]) -> bool:
    """A box whose whole content is another box (``\\boxed{\\boxed{36}}``, ``\\boxed{\\,\\boxed{18}\\,}``: the
    spacing around the inner box is no content): one answer, framed twice."""
    content = _without_edge_spacing(seen[outer[1] : outer[2]])
    return content.startswith("\\") and any(
        inner is not outer and content == seen[inner[0] : inner[3]] for inner in final
    )


def _content(seen: str, box: Box) -> str:
    return seen[box[1] : box[2]].strip()


def _same_text(a: str, b: str) -> bool:
    """Equal up to spaces, math delimiters, a closing full stop and ``\\dfrac`` (a cheap first check)."""

    def bare(text: str) -> str:
        text = text.replace("\\dfrac", "\\frac").replace("\\(", "").replace("\\)", "").replace("\u2212", "-")
        return "".join(text.replace("$", "").split()).rstrip(".")

    return bare(a) == bare(b)


Committed = tuple[list[Box], tuple[str, ...], tuple[str, ...]]


def commitment(seen: str, group: list[Box], scan) -> Committed | None:
    """(answer boxes, other answers, qualifiers): the boxes of the committed answer, the other answers
    the final part commits to (text, each unlike the answer's) and what the words around the answer
    make of it ("bound", "estimate", "unit:<word>"); no boxes and one other answer: a withdrawn box
    whose place a later answer statement takes, that statement being the answer; None when the
    completion commits to no answer. `seen`: what a reader sees; `group`: the last box with the boxes
    of the same answer before it; `scan(text)`: every closed box of `text`
    (`benchmarks.grading.math_boxes`' linear scan)."""
    first, end = group[0][0], group[-1][3]
    # The common case first, on a superset of the final part (any text it would not read makes it
    # take the full path, which decides alike): no other box, no digit, "$" or "*" that a statement
    # could use, no cue word near the box (`benchmarks.grading.math_scope.hinted`), nothing but
    # closing punctuation after it, or text with neither a value nor a cue nor a unit.
    floor = first - FINAL_CHARS if first > FINAL_CHARS else 0
    before, after = seen[floor:first], seen[end:]
    closing = not after.strip(CLOSING)  # nothing but closing punctuation after the box (the usual)
    if (
        "box" not in before  # no other \\boxed or \\fbox
        and not may_state(before)
        and before.isascii()  # a note to the grader in another language is read on the full path
        and not hinted(seen[first - CLAUSE_CHARS if first > CLAUSE_CHARS else 0 : first])
        and (closing or not may_state(after) and not hinted(after) and unit_after(after) is None)
    ):
        return group, (), ()
    start = _final_start(seen, first)
    tail = seen[start : end + AFTER_CHARS]
    if addresses_grader(tail.lower()):
        return None  # the final part speaks to the grader: no answer
    single = "\\boxed" not in seen[start:first] and "\\fbox" not in seen[start:first]
    lowered = tail.lower()
    if len(lowered) != len(tail):  # a character whose lower case is longer: read the text as written
        lowered = tail
    final = group if single else sorted(tuple(position + start for position in box) for box in scan(tail))
    if len(final) > MAX_FINAL_BOXES:
        return None  # a list of candidates, not an answer
    final = [outer for outer in final if not _drawn_twice(seen, outer, final)]
    for outer in final:
        if any(outer[1] <= inner[0] and inner[3] <= outer[2] for inner in final if inner is not outer):
            return None  # a box inside a box: which one is the answer?
    if _set_aside(seen, start, group[0], group[-1][3]):
        kept = [box for box in final if box not in group and box[3] <= first and not _set_aside(seen, start, box)]
        stated = [value for value in _statements(seen[end:], lowered[end - start :]) if "\\boxed" not in value]
        replaced = _REPLACED_BY.match(seen, end)
        if replaced is not None:
            stated.append(replaced.group(1))
        concluded = None if stated or kept else final_statement(seen[end:])
        if concluded is not None:  # a concluding last sentence after the withdrawn box
            stated.append(concluded)
        if stated:  # the box is withdrawn and a statement after it gives the answer instead
            return [], (stated[-1].strip().strip("$").strip(),), ()
        if not kept:
            return None
        group = [kept[-1]]
    before = seen[max(start, group[0][0] - CLAUSE_CHARS) : group[0][0]]
    if "either" in before.lower() and _EITHER.search(_SENTENCE_START.split(before)[-1]):
        return None
    answer = ", ".join(_content(seen, box) for box in group)
    others = [_content(seen, box) for box in final if box not in group and not _set_aside(seen, start, box)]
    for value in _statements(tail, lowered):
        if "\\boxed" not in value and "\\fbox" not in value:
            others.append(value.strip().strip("$").strip())
    alternative = _ALTERNATIVE.match(seen, group[-1][3], group[-1][3] + CLAUSE_CHARS)
    if alternative is not None:  # "$\\boxed{6}$ (or possibly 9 if ...)": another answer offered beside it
        others.append(alternative.group(1).strip().strip("$").strip())
    for offered in _OFFERED.finditer(seen, group[-1][3], group[-1][3] + OFFERED_CHARS):
        others.append((offered.group(1) or offered.group(2)).strip().strip("$").strip())
    others = tuple(dict.fromkeys(other for other in others if other and not _same_text(other, answer)))
    return group, others, _qualifiers(before, seen[group[-1][3] : group[-1][3] + CLAUSE_CHARS])


def _qualifiers(before: str, after: str) -> tuple[str, ...]:
    """What the words around the answer make of it: a bound or an estimate (before or after it, in
    its clause) and the unit word right after it (`benchmarks.grading.math_asked.unit_after`)."""
    found = [kind for kind in (qualifier_before(before), qualifier_after(after)) if kind is not None]
    unit, subject = unit_after(after), subject_quantity(before)  # "The diameter is $\\boxed{5}$": named
    found += [] if unit is None else ["unit:" + unit]
    return tuple(dict.fromkeys(found + ([] if subject is None else ["subject:" + subject])))
