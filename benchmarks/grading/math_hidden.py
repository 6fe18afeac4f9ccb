"""What a reader of a math completion does not see, and answers taken back: hidden boxes and retractions.

    visible("so \\boxed{15} % \\boxed{16}")              # "so \\boxed{15}             ": the comment blanked
    retracted("... \\boxed{12}. Wait, that is wrong.")   # True: the answer is taken back
    retracted("... \\boxed{12}. Check: 3 * 4 = 12.")     # False: a check that confirms it

A box is an answer only where a reader sees it. `visible` blanks (with spaces, so that every
position stays where it was and the answer's spans can be read off the original text):
- a LaTeX line comment: an unescaped ``%`` at the start of a line or after a space, to the end of
  the line (``20%`` after a digit is a percent sign, not a comment);
- ``\\phantom{...}``, ``\\hphantom{...}``, ``\\vphantom{...}`` (typeset as blank space);
- ``\\iffalse ... \\fi`` (never typeset);
- Markdown code: fenced blocks (three backticks) and inline code (one backtick);
- HTML comments ``<!-- ... -->``.

`retracted(tail)` tells whether the text after an answer takes it back ("wait, that is wrong",
"that's incorrect", "no, that's not right", "scratch that", "let me redo") without giving a new one:
the grader then reads no answer at all. A check that confirms the answer is not a retraction.

Both are linear in the text (regexes without nested quantifiers, one brace scan per phantom) and
cheap when the text has none of the markers, which is the common case.
"""

import re

RETRACTION_CHARS = 400  # the text after an answer that is searched for a retraction

_COMMENT = re.compile(r"(?:^|(?<=[ \t]))(?<!\\)%[^\n]*", re.MULTILINE)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_IFFALSE = re.compile(r"\\iffalse\b.*?(?:\\fi\b|\Z)", re.DOTALL)
_PHANTOM = re.compile(r"\\[hv]?phantom\s*\{")
_RETRACTION = re.compile(
    r"\b(?:wait|hold on|oops|scratch that|that(?:'s| is| was) (?:wrong|not right|incorrect|a mistake)"
    r"|(?:this|that|it|my (?:answer|result)|the (?:answer|result|above)) (?:is|was) (?:wrong|incorrect|not right)"
    r"|made (?:a|an) (?:mistake|error)|let me (?:redo|recompute|reconsider|start over|try again)"
    r"|actually,? (?:no|it is not|it's not)|no,? that(?:'s| is) not)\b",
    re.IGNORECASE,
)
_CONFIRMATION = re.compile(
    r"\b(?:correct|confirm(?:s|ed)?|checks out|verified|as expected|consistent)\b", re.IGNORECASE
)


def _phantom_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each phantom with its balanced braces; an unclosed one runs to the end."""
    spans, position = [], 0
    while (found := _PHANTOM.search(text, position)) is not None:
        depth, index = 1, found.end()
        while index < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            index += 1
        spans.append((found.start(), index))
        position = index
    return spans


def visible(text: str) -> str:
    """`text` with what a reader does not see blanked by spaces (same length, same positions)."""
    if "%" not in text and "`" not in text and "phantom" not in text and "<!--" not in text and "iffalse" not in text:
        return text  # the common case, five C-level scans
    chars = list(text)  # blanked in place: each span costs its own length, whatever their number
    for pattern in (_FENCE, _HTML_COMMENT, _IFFALSE, _INLINE_CODE, _COMMENT):
        current = "".join(chars)
        for found in pattern.finditer(current):
            chars[found.start() : found.end()] = " " * (found.end() - found.start())
    for start, end in _phantom_spans("".join(chars)):
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def retracted(tail: str) -> bool:
    """Whether `tail`, the text after an answer, takes that answer back (module docstring)."""
    tail = tail[:RETRACTION_CHARS]
    found = _RETRACTION.search(tail)
    if found is None:
        return False
    # "Wait, let me check: 3 * 4 = 12, which is correct." confirms rather than retracts.
    return not (found.group().lower() in ("wait", "hold on") and _CONFIRMATION.search(tail, found.end()))
