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
- HTML comments ``<!-- ... -->``;
- Markdown comments and footnotes: a line that defines a link label or a footnote (``[//]: # (...)``,
  ``[^1]: ...``): a link definition is never shown, a footnote only far from the answer;
- the ``comment``, ``verbatim``, ``lstlisting`` and ``minted`` environments and ``\\verb|...|``
  (verbatim shows the source, not a box);
- HTML elements with ``display:none``, ``visibility:hidden``, ``hidden``, ``opacity:0``, ``font-size:0``,
  a white colour, and
  ``<details>`` (folded away unless a reader opens it);
- white text: ``\\color{white}`` to the end of its group, ``\\textcolor{white}{...}``;
- struck-out text (withdrawn): ``~~...~~``, ``<del>``, ``<s>``, ``\\sout{}``, ``\\cancel{}`` and kin.

`manipulates(text)` tells whether a completion defines or redefines macros (``\\def``,
``\\newcommand``, ``\\renewcommand{\\boxed}``, ``\\let``, ...: what is displayed is then not what is
written) or, near its end (ADDRESS_CHARS), addresses the grader ("note to the grader", "mark this
as correct", "ignore the previous instructions"); such a completion gives no answer at all.

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
_LINK_DEFINITION = re.compile(r"^[ \t]*\[[^\]\n]{1,80}\]:[^\n]*", re.MULTILINE)  # [//]: # (...), [^1]: ...
_ENVIRONMENT = re.compile(r"\\begin\{(comment|verbatim\*?|lstlisting|minted)\}.*?(?:\\end\{\1\}|\Z)", re.DOTALL)
_VERB = re.compile(r"\\verb\*?([^\sA-Za-z*])[^\n]*?(?:\1|$)", re.MULTILINE)
_STRUCK = re.compile(r"~~[^~\n]+~~")
_STRIKE_COMMAND = re.compile(r"\\(?:sout|st|cancel|bcancel|xcancel|xout|cancelto\s*\{[^{}]*\})\s*\{")
_WHITE = r"(?:white|\#?fff(?:fff)?\b)"
_HIDDEN_STYLE = (
    r"display\s*:\s*none|visibility\s*:\s*hidden|\bhidden\b|opacity\s*:\s*0(?:\.0*)?(?![.\d])"
    r"|font-size\s*:\s*0(?![.\d])|(?<![-\w])color\s*:\s*" + _WHITE
)
_TAG = re.compile(r"<(\w+)\b([^<>]{0,300})>")  # an opening tag: each try stops at the next "<" (linear)
_HIDDEN_ATTRIBUTES = re.compile(_HIDDEN_STYLE, re.IGNORECASE)
_FOLDED = frozenset(("details", "del", "s", "strike"))
_WHITE_TEXT = re.compile(r"\\color\s*\{\s*" + _WHITE + r"\s*\}|\\textcolor\s*\{\s*" + _WHITE + r"\s*\}\s*\{", re.I)
_MACRO = re.compile(
    r"\\(?:[gex]?def|let|(?:re)?newcommand|providecommand|DeclareRobustCommand|DeclareMathOperator|catcode)(?![A-Za-z])"
)
# Gates of the common case, each a C-level scan: LaTeX that hides or defines (its literal backslash
# prefix makes the search fast), and single characters that start the other hiding markup.
_LATEX_HINT = re.compile(
    r"\\(?:[hv]?phantom|iffalse|begin|verb|color|textcolor|sout|st|[bx]?cancel|xout|cancelto|[gex]?def|let"
    r"|(?:re)?newcommand|providecommand"
    r"|Declare|catcode)(?![A-Za-z])"
)
_ADDRESS_HINTS = ("grad", "evaluat", "reward", "mark", "ignore")
_ADDRESS = re.compile(  # on lowered text
    r"(?:(?:auto-?)?grader|grading (?:script|system|model)|reward model|evaluator)\b"
    r"|\bmark (?:this|it|my answer|the answer) (?:as )?(?:correct|right)\b"
    r"|\bignore (?:the |all )?(?:previous|above|earlier|other) (?:instructions|boxes|answers?)\b"
)
ADDRESS_CHARS = 300  # the tail searched for text addressed to the grader
_RETRACTION = re.compile(
    r"\b(?:wait|hold on|oops|scratch that"
    r"|that(?:'s| is| was) (?:wrong|not right|incorrect|an? (?:\w+ )?(?:mistake|error))"
    r"|(?:this|that|it|my (?:answer|result)|the (?:answer|result|above)) (?:is|was) (?:wrong|incorrect|not right)"
    r"|made (?:a|an) (?:mistake|error)|let me (?:redo|recompute|reconsider|start over|try again)"
    r"|actually,? (?:no|it is not|it's not)|no,? that(?:'s| is) not)\b",
    re.IGNORECASE,
)
_CONFIRMATION = re.compile(
    r"\b(?:correct|confirm(?:s|ed)?|checks out|verified|as expected|consistent)\b", re.IGNORECASE
)


def _group_spans(text: str, opener: re.Pattern) -> list[tuple[int, int]]:
    """(start, end) from each match of `opener` to the brace that closes the group it opened (or the
    group it stands in, for ``\\color``, which ends with it); an unclosed one runs to the end."""
    spans, position = [], 0
    while (found := opener.search(text, position)) is not None:
        depth, index = 1, found.end()
        while index < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            index += 1
        spans.append((found.start(), index))
        position = index
    return spans


def defines_macros(text: str) -> bool:
    """Whether `text` defines or redefines a macro (module docstring)."""
    return _LATEX_HINT.search(text) is not None and _MACRO.search(text) is not None


def addresses_grader(lowered: str) -> bool:
    """Whether lowered text speaks to the grader ("note to the grader", "mark this as correct")."""
    hinted = (
        "grad" in lowered or "evaluat" in lowered or "reward" in lowered or "mark" in lowered or "ignore" in lowered
    )
    return hinted and _ADDRESS.search(lowered) is not None


def manipulates(text: str) -> bool:
    """Whether `text` defines macros or, in its last ADDRESS_CHARS, addresses the grader (module
    docstring): no answer then."""
    return defines_macros(text) or addresses_grader(text[-ADDRESS_CHARS:].lower())


def reader_view(text: str) -> str | None:
    """What a reader sees of `text` (`visible`), or None when it defines macros: then what is shown
    is not what is written. One scan in the common case, which has neither."""
    if "%" in text or "`" in text or "<" in text or ("]" in text and "]:" in text) or ("~" in text and "~~" in text):
        return None if defines_macros(text) else _blanked(text)
    if _LATEX_HINT.search(text) is None:
        return text
    return None if _MACRO.search(text) is not None else _blanked(text)


def _may_hide(text: str) -> bool:
    """Whether `text` has any marker of hidden markup at all (the gate of `visible`)."""
    if "%" in text or "`" in text or "<" in text or ("~" in text and "~~" in text):
        return True
    return _LATEX_HINT.search(text) is not None or ("]" in text and "]:" in text)


def visible(text: str) -> str:
    """`text` with what a reader does not see blanked by spaces (same length, same positions)."""
    return _blanked(text) if _may_hide(text) else text  # the common case: nothing hidden


def _blanked(text: str) -> str:
    chars = list(text)  # blanked in place: each span costs its own length, whatever their number
    patterns = (_FENCE, _HTML_COMMENT, _ENVIRONMENT, _VERB, _STRUCK, _IFFALSE, _INLINE_CODE, _COMMENT)
    for pattern in (*patterns, _LINK_DEFINITION):
        current = "".join(chars)
        for found in pattern.finditer(current):
            chars[found.start() : found.end()] = " " * (found.end() - found.start())
    for opener in (_PHANTOM, _WHITE_TEXT, _STRIKE_COMMAND):
        for start, end in _group_spans("".join(chars), opener):
            chars[start:end] = " " * (end - start)
    if ">" in text:
        for start, end in _hidden_elements("".join(chars)):
            chars[start:end] = " " * (end - start)
    return "".join(chars)


def _hidden_elements(text: str) -> list[tuple[int, int]]:
    """(start, end) of each HTML element a reader does not see: hidden by its attributes, folded in
    ``<details>`` or struck out (``<del>``, ``<s>``, ``<strike>``), to its closing tag or the end."""
    spans, lowered, covered = [], text.lower(), 0
    for tag in _TAG.finditer(text):
        name = tag.group(1).lower()
        if tag.start() < covered or not (name in _FOLDED or _HIDDEN_ATTRIBUTES.search(tag.group(2))):
            continue
        closing = lowered.find(f"</{name}", tag.end())
        covered = len(text) if closing < 0 else lowered.find(">", closing) + 1 or len(text)
        spans.append((tag.start(), covered))
    return spans


def retracted(tail: str) -> bool:
    """Whether `tail`, the text after an answer, takes that answer back (module docstring)."""
    tail = tail[:RETRACTION_CHARS]
    found = _RETRACTION.search(tail)
    if found is None:
        return False
    # "Wait, let me check: 3 * 4 = 12, which is correct." confirms rather than retracts.
    return not (found.group().lower() in ("wait", "hold on") and _CONFIRMATION.search(tail, found.end()))
