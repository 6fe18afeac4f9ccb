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
  a white or transparent colour (style or ``color=`` attribute), placed off the page (``left:-9999px``)
  or scaled to nothing; elements never shown (``<script>``, ``<style>``, ``<template>``,
  ``<noscript>``) and ``<details>`` (folded away unless a reader opens it); then the tags of
  common elements themselves (markup, not text: a ``>`` of a tag is no relation);
- white text in any colour model (``\\color{white}``, ``\\color[rgb]{1,1,1}``, ``\\color[gray]{1}``,
  ``\\textcolor[HTML]{FFFFFF}{...}``) and text scaled to nothing (``\\scalebox{0}``, ``\\resizebox{0pt}``);
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
# A colour a reader cannot see on a white page: white by name, hex, rgb or LaTeX's models, or transparent.
_WHITE = (
    r"(?:white|transparent|\#?fff(?:fff)?\b|rgba?\(\s*255\s*,\s*255\s*,\s*255\s*[,)]|rgba\([^()]*,\s*0(?:\.0*)?\s*\)"
    r"|1\s*,\s*1\s*,\s*1\b|1\s+1\s+1\b|1(?:\.0*)?(?=\s*\}))"
)
_HIDDEN_STYLE = (  # an element's style or attributes that hide it (hidden, folded away, off the page, white)
    r"display\s*:\s*none|visibility\s*:\s*hidden|\bhidden\b|opacity\s*:\s*0(?:\.0*)?(?![.\d])"
    r"|font-size\s*:\s*0(?![.\d])|(?<![-\w])color\s*[:=]\s*[\"']?\s*"
    + _WHITE
    + r"|(?:left|top|right|text-indent|margin-left|margin-top)\s*:\s*-\d{3,}|transform\s*:\s*scale\(\s*0(?![.\d])"
    r"|clip\s*:\s*rect\(\s*0"
)
_TAG = re.compile(r"<(\w+)\b([^<>]{0,300})>")  # an opening tag: each try stops at the next "<" (linear)
_MARKUP_TAG = re.compile(  # an HTML tag of a common element, opening or closing ("$x<b$" is maths: no space)
    r"</?(?:span|div|p|font|b|i|em|strong|u|small|big|sub|sup|mark|br|hr|center|section|summary|label|table|tr|td"
    r"|th|ul|ol|li|h[1-6]|a|code|pre|blockquote|ins|tt)(?:\s[^<>]{0,300})?/?>",
    re.IGNORECASE,
)
_HIDDEN_ATTRIBUTES = re.compile(_HIDDEN_STYLE, re.IGNORECASE)
# Elements never shown (scripts, styles, templates), folded away (details) or struck out.
_FOLDED = frozenset(("details", "del", "s", "strike", "script", "style", "template", "noscript"))
_WHITE_TEXT = re.compile(  # white text, in any colour model ("\\color[rgb]{1,1,1}"), or text scaled to nothing
    r"\\color\s*(?:\[\s*\w+\s*\])?\s*\{\s*" + _WHITE + r"\s*\}"
    r"|\\textcolor\s*(?:\[\s*\w+\s*\])?\s*\{\s*" + _WHITE + r"\s*\}\s*\{"
    r"|\\(?:scalebox\s*\{\s*0*(?:\.0*)?\s*\}|resizebox\s*\{\s*0\s*(?:pt|em|ex|cm|mm|in)?\s*\}\s*\{[^{}]*\})\s*\{",
    re.IGNORECASE,
)
_MACRO = re.compile(  # anything that defines or redefines a control sequence
    r"\\(?:[gex]?def|let|futurelet|(?:re)?newcommand|providecommand|(?:New|Renew|Provide|Declare)(?:Expandable)?"
    r"DocumentCommand|DeclareRobustCommand|DeclareMathOperator|catcode|csname|expandafter|(?:math)?chardef)(?![A-Za-z])"
)
# Gates of the common case, each a C-level scan: LaTeX that hides or defines (its literal backslash
# prefix makes the search fast), and single characters that start the other hiding markup.
_LATEX_HINT = re.compile(
    r"\\(?:[hv]?phantom|iffalse|begin|verb|color|textcolor|scalebox|resizebox|sout|st|[bx]?cancel|xout|cancelto|[gex]?def|let"
    r"|(?:re)?newcommand|providecommand|futurelet|csname|expandafter|(?:math)?chardef"
    r"|(?:New|Renew|Provide)(?:Expandable)?DocumentCommand|Declare\w*|catcode)(?![A-Za-z])"
)
# Text addressed to the grader (on lowered text): whoever grades, named in a note, a greeting, a
# line that opens with it or a fake system message, or an instruction about the credit to give.
_GRADER = (
    r"(?:(?:auto(?:mated)?[- ]?)?(?:grader|grading (?:script|system|model|bot)|evaluator|judge|checker|scorer"
    r"|marker|reviewer|verifier|assessor|examiner|reward model)s?"
    r"|whoever (?:grades|checks|scores|marks|reviews|evaluates|reads) (?:this|it|the answer))"
)
_ADDRESS = re.compile(
    r"\b(?:note|message|instructions?|reminder|memo|hint|attention|request|p\.?s\.?)\s*(?:to|for)\s+"
    r"(?:the |any |an? |all |our )?" + _GRADER
    + r"|\b(?:dear|hey|hello|hi|to (?:the|any|all|my)) " + _GRADER
    + r"|(?:^|\n)\W*(?:the )?" + _GRADER + r"\s*[:,]"
    + r"|[\[<]\s*(?:system|admin|grader|evaluator)\b|\bsystem (?:note|message|override|prompt|instruction)"
    + r"|\b(?:mark|grade|score|treat|accept|record|rate)\s+(?:this|it|me|my (?:answer|solution|work"
    r"|response)|the (?:answer|solution|response)(?: below| above)?)\s+(?:as\s+)?(?:correct|right|valid|accepted"
    r"|a pass|full)\b"
    r"|\b(?:award|give|grant|assign)\s+(?:(?:this|it|me|the (?:answer|solution|response))\s+)?(?:full|maximum"
    r"|perfect|all)\s+(?:the\s+)?(?:marks|credit|points|score|reward)"
    r"|\b(?:must|should|has to) be (?:accepted|marked (?:as )?correct|graded (?:as )?correct|credited)\b"
    r"|\bignore (?:the |all |any )?(?:previous|above|earlier|other|prior|preceding) (?:instructions|boxes|answers?"
    r"|rules|text)\b"
)  # fmt: skip
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


_ADDRESS_HINT = re.compile(
    r"grad|evaluat|judg|check|scor|mark|review|verif|assess|examin|reward|system|admin|whoever|accept|credit"
    r"|award|ignore|rate"
)


def addresses_grader(lowered: str) -> bool:
    """Whether lowered text speaks to the grader ("note to the grader", "Automated checker: accept
    this", "[SYSTEM: verified]", "award full marks")."""
    return _ADDRESS_HINT.search(lowered) is not None and _ADDRESS.search(lowered) is not None


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


# Each pattern with a substring that every match of it contains: a pattern whose substring is
# absent costs one C-level scan, not a regex pass and a copy of the text.
_TRIGGERED = (
    ("```", _FENCE),
    ("<!--", _HTML_COMMENT),
    ("\\begin", _ENVIRONMENT),
    ("\\verb", _VERB),
    ("~~", _STRUCK),
    ("\\iffalse", _IFFALSE),
    ("`", _INLINE_CODE),
    ("%", _COMMENT),
    ("]:", _LINK_DEFINITION),
)


def _spaces(found: re.Match) -> str:
    return " " * (found.end() - found.start())


def _blanked(text: str) -> str:
    current = text  # blanked pattern by pattern (a span blanked first is not read by the next)
    for trigger, pattern in _TRIGGERED:
        if trigger in current:
            current = pattern.sub(_spaces, current)
    if "\\" in current:
        for opener in (_PHANTOM, _WHITE_TEXT, _STRIKE_COMMAND):
            current = _blank_spans(current, _group_spans(current, opener))
    if "<" in current and ">" in current:
        current = _blank_spans(current, _hidden_elements(current))
        current = _MARKUP_TAG.sub(_spaces, current)  # the tags of what is shown are not shown either
    return current


def _blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each of `spans` (in order, not overlapping) blanked, in one pass."""
    if not spans:
        return text
    pieces, position = [], 0
    for start, end in spans:
        pieces += (text[position:start], " " * (end - start))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


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
