"""What counts as an answer in a math completion: the extraction rules of the project's grader.

    extract("... so the total is \\boxed{12}.")           # Extracted("12", rule="boxed")
    extract("... \\boxed{2} and \\boxed{3}")               # Extracted("2, 3", rule="boxed"), both boxes in .spans
    extract("... The final answer is $1000$.")            # Extracted("1000", rule="statement")
    extract("52")                                         # Extracted("52", rule="whole")
    extract("... we add 67 and 69, which gives 136.")      # Extracted("136", rule="conclusion")
    extract("... 196/9 is not an integer, so 9")          # None: no box, no answer statement
    extract("The final answer is 42.", truncated=True)    # None: a cut-off completion gets no fallback

The rules, in order; the first that applies gives the answer:

1. ``boxed``: the ``\\boxed{...}`` (or ``\\fbox{...}``) that starts last, braces balanced. Boxes right
   before it, separated from it only by commas, semicolons, "and", "or", ``\\quad``, ``$`` or spaces
   (at most GAP_CHARS of them),
   are the same answer split over several boxes (``x = \\boxed{2}, y = \\boxed{3}`` is not: words lie
   between them); their contents are graded joined by ", " (at most MAX_BOXES of them). The
   completion must commit to it (`benchmarks.grading.math_commit`): the other answers of its final
   part travel with it (`Extracted.others`, each to equal it in value), and a negated, nested or
   either/or box is no answer. A box taken back after it leaves only a final answer statement.
2. ``statement`` (fallback "statement" only): no box, and the completion ends with an answer
   statement: "answer" or "final answer" followed by "is", ":", "=", a dash or the end of its line (so
   "The final answer is X", "Answer: X", "**Final Answer:** X", "### Answer" and X below), then the
   answer, then nothing but closing punctuation (and a closing "I hope it is correct." / "I hope
   this helps!"). The answer is a closed math span
   (``$...$``, ``\\(...\\)``, ``\\[...\\]``) or plain text: a formula without words (``\\text{}`` aside),
   optionally followed by up to three unit words ("5 cm", "\\$32,348"), or one single word ("Evelyn",
   "B"). An unclosed ``$`` or brace, words before the answer ("the answer is not 42 but") or a
   second sentence after it mean there is no answer.
3. ``whole`` (fallback "statement" only): the whole completion is nothing but such an answer ("52",
   "$\\frac{1}{2}$.", "x = 5", "7 + 45 = 52"; at most WHOLE_CHARS characters, an integer of any
   length): what "Answer with just the number." asks for.
4. ``conclusion`` (fallback "statement" only): the completion's last sentence ends, with its full
   stop, on a result: "= X.", "is X.", "equals X.", "results in X.", "gives X.", "get X.", where X
   is a number (with up to two unit words: "is 30 inches.") or a closed math span ("is $2.$"), or
   on an equation in a math span, X being its right side ("so $3 \\cdot 4 = 12$."); a unit word
   after X travels with it; a last sentence that lists values joined by "and" ("the roots are $x = 5$
   and $x = -1$.") gives them all. A sentence that stops without its full stop ("... so 9") is not one.
   Then a last line that concludes on one value after a sign or a label ("∴ x = 6", "In
   interval notation: ..."), and last an unboxed final statement (`benchmarks.grading.math_final`):
   the one bold value of the last line, a last line of its own paragraph that is nothing but an
   answer, or a concluding last sentence that names one value ("So it has twelve edges."), with
   the unit, bound or estimate words around it. Rules 2 to 4 read the text with other scripts'
   digits, superscripts and vulgar fractions in ASCII (`benchmarks.grading.math_glyphs`).

Fallback "boxed" keeps rule 1 only. Rules 2 to 4 never read a truncated completion: pass
``truncated=True`` when the completion was cut at its token limit (RL rollouts know this). Without
that flag only the text can tell: the answer has to close the completion (a full stop, a closed
math span), but "The answer is 4" cut from "The answer is 42" reads as complete; a box is never
affected ("\\boxed{4" is not closed, so it is no box).

Bounds: one linear scan over brace tokens finds the last box, a second one over the GROUP_CHARS
before it the boxes of the same answer; the statement is looked for only in the last
STATEMENT_CHARS characters and the conclusion in the last CONCLUSION_CHARS, with regexes that
have no nested quantifiers; an answer text is at most `math_final.ANSWER_TEXT_CHARS` long.

This module orders the rules (`extract`) and holds the gate of the common completion
(`plain_box`); rule 1 is `benchmarks.grading.math_boxes`, rules 2 to 4
`benchmarks.grading.math_unboxed`, the answer they return `benchmarks.grading.math_extracted.Extracted`.
"""

import re

from benchmarks.grading.math_address import ADDRESS_CHARS, addresses_grader, hidden_address
from benchmarks.grading.math_boxes import GROUP_CHARS, NO_BOX, boxed_answer
from benchmarks.grading.math_commit import CLOSING, FINAL_CHARS, may_state
from benchmarks.grading.math_ending import reader_ending, without_check
from benchmarks.grading.math_extracted import Extracted, make_extracted
from benchmarks.grading.math_glyphs import ascii_forms
from benchmarks.grading.math_hidden import HIDING_COMMANDS, footnotes, hiding_marks, reader_view
from benchmarks.grading.math_retraction import retracted
from benchmarks.grading.math_scope import CLAUSE_CHARS, hinted, mentions_grader
from benchmarks.grading.math_unboxed import (
    conclusion_answer,
    final_line_answer,
    final_statement_answer,
    listed_answer,
    statement_answer,
    whole_answer,
)

FALLBACKS = ("statement", "boxed")
HEAD_CHARS = 120  # the longest first line read for a note to the grader

_LATEX_SPACE = re.compile(r"^\s*(?:\\[,;:! ]|\\quad|\\qquad|~|\s)*")


def opens_with_address(seen: str) -> bool:
    """Whether the completion's first line (at most HEAD_CHARS) speaks to the grader: a note to the
    grader opens a completion, or stands near its answer (`benchmarks.grading.math_commit` reads the
    final part); one in the middle of a long completion is not looked for."""
    line_end = seen.find("\n", 0, HEAD_CHARS)
    head = seen[: HEAD_CHARS if line_end < 0 else line_end]
    return mentions_grader(head) and addresses_grader(head.lower())


# The gate of the common completion: one box, closed, nothing but closing punctuation after it. Each
# reading that could change its answer owns its triggers, and the gate is their union: hidden markup
# anywhere (`math_hidden.hiding_marks`, `math_hidden.HIDING_COMMANDS`), and in the final part before
# the box another box or a statement's value (`math_commit.may_state`), a character outside ASCII or a
# cue word in its clause (`math_scope.hinted`: words of every cue class and of notes to the grader). A retraction
# (`math_retraction.RETRACTION_TRIGGERS`) needs a letter after the box, which CLOSING has not.
_PLAIN_OPEN = "\\boxed{"
MAX_PLAIN_BRACES = 8  # closing braces tried in a box's content by the gate


def plain_box(text: str) -> Extracted | None:
    """The answer of a completion that none of the readings (hidden markup, commitment, cue words,
    retraction) can change, read at once: its one box; None when any trigger is present (then
    `extract` runs them all, and decides alike on this text: tests/benchmarks/grading/test_gate.py)."""
    start = text.rfind(_PLAIN_OPEN)
    if start < 0:
        return None
    content_start = start + len(_PLAIN_OPEN)
    close = text.find("}", content_start)
    if close < 0:
        return None
    # Braces inside (``\\frac{1}{2}``): the box closes at the first "}" before which its content
    # has as many "}" as "{" (the depth falls by one at each "}"), found by C-level counts.
    for _ in range(MAX_PLAIN_BRACES):
        if text.count("{", content_start, close) == text.count("}", content_start, close):
            break
        close = text.find("}", close + 1)
        if close < 0:
            return None
    else:
        return None  # deeply nested: `extract` reads it
    end = close + 1
    if text[end:].strip(CLOSING):
        return None
    if hiding_marks(text):
        return None
    # No other box: inside it, in the final part (where `commitment` looks for "box"), or before it
    # where it could join it (`math_boxes._boxed_group` reads GROUP_CHARS back; a box opens with a backslash,
    # none of which comes before the box's own in the common case). After it there is only CLOSING.
    final = text[start - FINAL_CHARS if start > FINAL_CHARS else 0 : start]
    if "box" in final or text.find("box", content_start, close) >= 0:
        return None
    backslash = text.find("\\")  # memchr: the first backslash, the box's own at the latest
    if backslash < start and text.find("box", start - GROUP_CHARS if start > GROUP_CHARS else 0, start) >= 0:
        return None
    # A character outside ASCII anywhere in the final part may be a note to the grader in another
    # language (`math_address.addresses_grader`), which the commitment reads: not the common case.
    if may_state(final) or not final.isascii() or hinted(final[-CLAUSE_CHARS:]):
        return None
    if HIDING_COMMANDS.search(text, backslash) is not None:  # from the first backslash on
        return None
    return make_extracted(text[content_start:close].strip(), "boxed", (text[start:end],), end)


def extract(
    text: str, fallback: str = "statement", truncated: bool = False, read_head: bool = True, gate: bool = True
) -> Extracted | None:
    """The answer of a completion by the rules above, or None when it gives none. `read_head=False`
    leaves `opens_with_address` to the caller (the grader asks it only of an answer it would credit:
    a wrong answer is refused whoever it speaks to). `gate=False` skips `plain_box` (for its tests)."""
    if fallback not in FALLBACKS:
        raise ValueError(f"unknown answer fallback {fallback!r}; allowed: {', '.join(FALLBACKS)}")
    if gate:
        plain = plain_box(text)
        if plain is not None:
            return None if read_head and opens_with_address(text) else plain
    seen = reader_view(text)  # hidden boxes and comments blanked, positions kept
    if seen is None or seen is not text and hidden_address(text, seen):
        return None  # macros redefine what is shown, or hidden text speaks to the grader: no answer
    if read_head and opens_with_address(seen):
        return None
    if seen is not text and retracted(footnotes(text)):
        return None  # a footnote to the answer takes it back ("[^1]: On second thought, it is 14.")
    found = boxed_answer(seen, text)  # None too where the text near the box addresses the grader
    if found is not NO_BOX:
        if found is None or not retracted(text[found.end :]):
            return found
        # Taken back: only a final answer after it remains (a statement, a concluding sentence).
        seen = reader_ending(ascii_forms(seen))
        return statement_answer(seen) or conclusion_answer(seen) or final_statement_answer(seen)
    if fallback == "boxed" or truncated or addresses_grader(seen[-ADDRESS_CHARS:].lower()):
        return None
    # Digits of other scripts, superscripts, vulgar fractions (`math_glyphs`); the ending as a reader reads
    # it (`math_ending`: no end-of-proof mark, no side remark), and before a last paragraph that only checks.
    box_hidden = seen is not text and ("\\boxed" in text or "\\fbox" in text)
    seen = reader_ending(ascii_forms(seen))
    if box_hidden:  # its box is hidden: only an answer stated in so many words is shown
        return statement_answer(seen)
    checked = without_check(seen)
    return (None if checked is None else _unboxed(reader_ending(checked), whole=False)) or _unboxed(seen)


def _unboxed(seen: str, whole: bool = True) -> Extracted | None:
    """Rules 2 to 4 on what a reader sees of a completion without a box (`whole=False`: its text before a
    check, which is not the whole completion)."""
    return (
        statement_answer(seen)
        or (whole and whole_answer(seen))
        or listed_answer(seen)
        or conclusion_answer(seen)
        or final_line_answer(seen)
        or final_statement_answer(seen)
    )
