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
   after X travels with it. A sentence that stops without its full stop ("... so 9") is not one.
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
"""

import re

from benchmarks.grading.math_asked import unit_after
from benchmarks.grading.math_commit import CLOSING, FINAL_CHARS, commitment, may_state
from benchmarks.grading.math_conclusion import concluding_line
from benchmarks.grading.math_final import answer_text, final_answer, unit_qualifier
from benchmarks.grading.math_glyphs import ascii_forms
from benchmarks.grading.math_hidden import (
    ADDRESS_CHARS,
    HIDING_COMMANDS,
    addresses_grader,
    hidden_address,
    hiding_marks,
    reader_view,
    retracted,
)
from benchmarks.grading.math_scope import CLAUSE_CHARS, hinted, mentions_grader

FALLBACKS = ("statement", "boxed")
MAX_BOXES = 8  # boxes joined into one answer at most
GROUP_CHARS = 2_000  # the text before the last box searched for the other boxes of its answer
GAP_CHARS = 40  # the longest separator between two boxes of one answer ("$, \\text{ and } $")
STATEMENT_CHARS = 600  # the tail searched for an answer statement
WHOLE_CHARS = 200  # the longest completion that can be an answer by itself
CONCLUSION_CHARS = 300  # the tail searched for a concluding sentence
HEAD_CHARS = 120  # the longest first line read for a note to the grader

_LATEX_SPACE = re.compile(r"^\s*(?:\\[,;:! ]|\\quad|\\qquad|~|\s)*")
_BOX_OPEN = re.compile(r"\\(?:boxed|fbox)\s*\{")
_BRACE_TOKEN = re.compile(r"\{|\}|\\(?:boxed|fbox)\s*\{")  # literal first characters: a fast C scan
_BRACE = re.compile(r"[{}]")
# What may lie between the boxes of one answer split over several.
_BOX_SEPARATOR = re.compile(r"(?:[\s,;$&]|\\quad|\\qquad|\\[,;: ]|\\text\{\s*(?:and|or|,)?\s*\}|and|or)*")
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


# A box: (where "\boxed" begins, where its content begins, where its content ends, after its closing
# brace). Plain tuples, not a NamedTuple: building one is a third of the cost of grading an integer.
Box = tuple[int, int, int, int]


class Extracted(str):
    """The answer text that is graded, with the rule that found it (`rule`: "boxed", "statement",
    "whole" or "conclusion") and the exact parts of the completion it was read from (`spans`: each box, or the
    statement, the completion or its last sentence). A str, so that callers that only want the
    answer see one."""

    rule: str
    spans: tuple[str, ...]
    end: int  # where the answer's text ends in the completion read (the last box's closing brace)
    others: tuple[str, ...] = ()  # the other answers the completion commits to (`benchmarks.grading.math_commit`)
    qualifiers: tuple[str, ...] = ()  # "bound", "estimate", "unit:<word>": the words around the answer
    pending: bool = False  # others or qualifiers: the full check must read them (no fast verdict)

    def __reduce__(self):
        return make_extracted, (str(self), self.rule, self.spans, self.end, self.others, self.qualifiers)


def make_extracted(
    answer: str, rule: str, spans: tuple[str, ...], end: int = -1, others: tuple = (), qualifiers: tuple = ()
) -> Extracted:
    """An `Extracted` (built without a Python-level ``__new__``: this runs on every grading call;
    empty `others` and `qualifiers` are the class's own, not set on each answer)."""
    found = _new_str(Extracted, answer)
    found.rule, found.spans, found.end = rule, spans, end
    if others or qualifiers:
        found.others, found.qualifiers, found.pending = others, qualifiers, True
    return found


_new_str = str.__new__


def _scan(text: str) -> list[Box]:
    """Every closed box, in closing order, in one pass from the first box on (a box's closing brace
    depends only on the text after it): a stack holds each open brace, with where its box began when
    it is a box's own brace; a closing brace pops its match (stray ones are ignored)."""
    first = _BOX_OPEN.search(text)
    if first is None:
        return []
    open_braces: list[tuple[int, int]] = []  # (box start or -1, index after the brace)
    closed = []
    for token in _BRACE_TOKEN.finditer(text, first.start()):
        if token.end() - token.start() > 1:  # "\boxed{"
            open_braces.append((token.start(), token.end()))
        elif text[token.start()] == "{":
            open_braces.append((-1, token.end()))
        elif open_braces:
            box_start, content_start = open_braces.pop()
            if box_start >= 0:
                closed.append((box_start, content_start, token.start(), token.end()))
    return closed


def last_box(text: str) -> Box | None:
    """The closed box that starts last (for nested boxes, the innermost). The hot path of every
    grading call: when the last ``\\boxed{`` closes, it is that box, found by matching braces forward
    from it; otherwise (it is left open) `_scan` decides, still in linear time."""
    opener = text.rfind("\\boxed")
    opener = max(opener, text.rfind("\\fbox", max(opener, 0)))
    head = _BOX_OPEN.match(text, opener) if opener >= 0 else None
    if head is not None:
        depth = 1
        for brace in _BRACE.finditer(text, head.end()):
            depth += 1 if brace.group() == "{" else -1
            if depth == 0:
                return opener, head.end(), brace.start(), brace.end()
    return max(_scan(text), default=None)  # tuples compare by their start first


_NO_BOX = make_extracted("", "none", ())  # what `_boxed` returns for a text without a closed box


def _boxed(text: str, original: str | None = None) -> Extracted | None:
    """Rule 1: the last box, with the boxes of the same answer right before it, if the completion
    commits to it (`benchmarks.grading.math_commit`). `text` is what a reader sees (`visible`); the
    answer and its spans are read off `original` (same positions)."""
    last = last_box(text)
    if last is None:
        return _NO_BOX
    # Most completions have one box: when no closing brace ends a separator gap right before it,
    # there is no other (the hot path of every grading call, so checked here first).
    brace = text.rfind("}", max(0, last[0] - GAP_CHARS - 1), last[0])
    single = brace < 0 or not _BOX_SEPARATOR.fullmatch(text, brace + 1, last[0])
    committed = commitment(text, [last] if single else _boxed_group(text, last), _scan)
    if committed is None:
        return None
    found, others, qualifiers = committed
    source = text if original is None else original
    if not found:  # the box withdrawn, a later statement committed to (`benchmarks.grading.math_commit`)
        return make_extracted(others[0], "statement", (others[0],), last[3])
    if len(found) == 1:  # the common case, without the joins
        box = found[0]
        spans = (source[box[0] : box[3]],)
        return make_extracted(_content(text, source, box), "boxed", spans, box[3], others, qualifiers) or None
    contents = [_content(text, source, box) for box in found]
    if len(set(contents)) == 1:  # the same answer boxed twice ("$\\boxed{42}$, $\\boxed{42}$")
        contents = contents[:1]
    answer = ", ".join(content for content in contents if content)
    spans = tuple(source[box[0] : box[3]] for box in found)
    return make_extracted(answer, "boxed", spans, found[-1][3], others, qualifiers)


def _content(seen: str, source: str, box: Box) -> str:
    """What a reader sees in a box: its text as written, or, where markup in it is hidden
    (``\\boxed{\\phantom{12}}``), what is left of it (an empty box is no answer)."""
    written = source[box[1] : box[2]]
    shown = seen[box[1] : box[2]]
    return written.strip() if shown == written else " ".join(shown.split())


def _boxed_group(text: str, last: Box) -> list[Box]:
    """The last box and the boxes of the same answer right before it, in order."""
    # Earlier boxes of the same answer lie in the GROUP_CHARS before it (a box that closes there also
    # opens there, or it is too long to be part of a split answer), each at most GAP_CHARS of
    # separators before the next; nearest first. Most completions have one box: when no closing
    # brace ends a separator gap right before it, there is no other.
    offset = max(0, last[0] - GROUP_CHARS)
    brace = text.rfind("}", max(offset, last[0] - GAP_CHARS - 1), last[0])
    if brace < 0 or not _BOX_SEPARATOR.fullmatch(text, brace + 1, last[0]):
        return [last]
    group = [last]
    for box in sorted(_scan(text[offset : last[0]]), key=lambda box: box[3], reverse=True):
        box = tuple(position + offset for position in box)
        gap_too_long = group[-1][0] - box[3] > GAP_CHARS
        if len(group) == MAX_BOXES or gap_too_long or not _BOX_SEPARATOR.fullmatch(text, box[3], group[-1][0]):
            break
        group.append(box)
    group.reverse()
    return group


def _statement(text: str) -> Extracted | None:
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


def _whole(text: str) -> Extracted | None:
    """Rule 3: the completion is nothing but an answer."""
    stripped = text.strip()
    if _LONG_INTEGER.fullmatch(stripped):  # an integer of any length ("7" * 5000): linear to check
        return make_extracted(stripped.rstrip("."), "whole", (stripped,))
    if len(stripped) > WHOLE_CHARS:
        return None
    answer = answer_text(stripped)
    return None if answer is None else make_extracted(answer, "whole", (stripped,), qualifiers=unit_qualifier(stripped))


def _conclusion(text: str) -> Extracted | None:
    """Rule 4: the last sentence ends on a result."""
    tail = text[-CONCLUSION_CHARS:]
    closing = _CLOSING.search(tail).start()
    found = _CONCLUSION.search(tail, 0, closing)
    if found is None:
        equation = _EQUATION_SPAN.search(tail, 0, closing)
        if equation is None or not tail[closing:].lstrip(" *").startswith((".", "!")):
            return None
        sentence_start = max(tail.rfind(". ", 0, equation.start()), tail.rfind("\n", 0, equation.start())) + 1
        return make_extracted(equation.group(2).strip(), "conclusion", (tail[sentence_start:].strip(),))
    if found.group(2) is not None and not tail[closing:].lstrip(" *").startswith((".", "!")):
        return None  # a number with no full stop after it: the sentence may go on ("so 9" -> "so 90")
    answer = (found.group(1) or found.group(2)).strip().rstrip(".").strip()
    sentence_start = max(tail.rfind(". ", 0, found.start()), tail.rfind("\n", 0, found.start())) + 1
    unit = unit_after(tail[found.end(found.lastindex) : closing])  # "is 250 mm long.": the unit travels with it
    qualifiers = () if unit is None else ("unit:" + unit,)
    return (
        make_extracted(answer, "conclusion", (tail[sentence_start:].strip(),), qualifiers=qualifiers)
        if answer
        else None
    )


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
# (`math_hidden.RETRACTION_TRIGGERS`) needs a letter after the box, which CLOSING has not.
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
    # where it could join it (`_boxed_group` reads GROUP_CHARS back; a box opens with a backslash,
    # none of which comes before the box's own in the common case). After it there is only CLOSING.
    final = text[start - FINAL_CHARS if start > FINAL_CHARS else 0 : start]
    if "box" in final or text.find("box", content_start, close) >= 0:
        return None
    backslash = text.find("\\")  # memchr: the first backslash, the box's own at the latest
    if backslash < start and text.find("box", start - GROUP_CHARS if start > GROUP_CHARS else 0, start) >= 0:
        return None
    # A character outside ASCII anywhere in the final part may be a note to the grader in another
    # language (`math_hidden.addresses_grader`), which the commitment reads: not the common case.
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
    found = _boxed(seen, text)  # None too where the text near the box addresses the grader
    if found is not _NO_BOX:
        if found is None or not retracted(text[found.end :]):
            return found
        # Taken back: only a final answer after it remains (a statement, a concluding sentence).
        seen = ascii_forms(seen)
        return _statement(seen) or _conclusion(seen) or _final(seen)
    if fallback == "boxed" or truncated or addresses_grader(seen[-ADDRESS_CHARS:].lower()):
        return None
    seen = ascii_forms(seen)  # digits of other scripts, superscripts, vulgar fractions (`math_glyphs`)
    return _statement(seen) or _whole(seen) or _conclusion(seen) or _final_line(seen) or _final(seen)


def _final(seen: str) -> Extracted | None:
    """Rule 5: an unboxed final statement or last line (`benchmarks.grading.math_final.final_answer`)."""
    final = final_answer(seen)
    if final is None:
        return None
    return make_extracted(final[0], "conclusion", (seen[-300:].strip(),), qualifiers=final[1])


def _final_line(seen: str) -> Extracted | None:
    """Rule 6: a last line that concludes on one value (`benchmarks.grading.math_final.concluding_line`)."""
    answer = concluding_line(seen)
    return None if answer is None else make_extracted(answer, "conclusion", (seen.rstrip().rsplit("\n", 1)[-1],))
