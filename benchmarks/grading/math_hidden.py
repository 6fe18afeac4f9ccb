"""What a reader of a math completion does not see: hidden boxes, and text that rewrites what is shown.

    visible("so \\boxed{15} % \\boxed{16}")              # "so \\boxed{15}             ": the comment blanked

A box is an answer only where a reader sees it. `visible` blanks (with spaces, so that every
position stays where it was and the answer's spans can be read off the original text):
- a LaTeX line comment: an unescaped ``%`` at the start of a line or after a space, to the end of
  the line (``20%`` after a digit is a percent sign, not a comment);
- ``\\phantom{...}``, ``\\hphantom{...}``, ``\\vphantom{...}`` (typeset as blank space);
- ``\\iffalse ... \\fi`` (never typeset), and of any TeX conditional the branch its condition does
  not select (`benchmarks.grading.math_tex_conditionals`);
- Markdown code: fenced blocks (three backticks) and inline code (one backtick);
- HTML comments ``<!-- ... -->``;
- Markdown comments and footnotes: a line that defines a link label or a footnote (``[//]: # (...)``,
  ``[^1]: ...``): a link definition is never shown, a footnote only far from the answer; its reference
  mark (``[^1]``) is no value of the answer it follows (a footnote that takes the answer back: `footnotes`);
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
as correct", "ignore the previous instructions": `benchmarks.grading.math_address`); such a
completion gives no answer at all. Answers taken back: `benchmarks.grading.math_retraction`.

Both are linear in the text (regexes without nested quantifiers, one brace scan per phantom) and
cheap when the text has none of the markers, which is the common case.
"""

import re

from benchmarks.grading.math_address import ADDRESS_CHARS, addresses_grader
from benchmarks.grading.math_tex_conditionals import unselected_branches

_COMMENT = re.compile(r"(?:^|(?<=[ \t]))(?<!\\)%[^\n]*", re.MULTILINE)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_PHANTOM = re.compile(r"\\[hv]?phantom\s*\{")
_LINK_DEFINITION = re.compile(r"^[ \t]*\[[^\]\n]{1,80}\]:[^\n]*", re.MULTILINE)  # [//]: # (...), [^1]: ...
_FOOTNOTE_MARK = re.compile(r"\[\^[^\]\s]{1,40}\]")  # "[^1]": a reference mark, rendered as a small number
_FOOTNOTE = re.compile(r"^[ \t]*\[\^[^\]\n]{1,40}\]:([^\n]*)", re.MULTILINE)
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
    r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|(?<![-\w])hidden\b|opacity\s*:\s*0(?:\.0*)?(?![.\d])"
    r"|font-size\s*:\s*0(?![.\d])|(?<![-\w])color\s*[:=]\s*[\"']?\s*"
    + _WHITE
    + r"|(?:left|top|right|text-indent|margin-left|margin-top)\s*:\s*-\d{3,}|transform\s*:\s*scale\(\s*0(?![.\d])"
    r"|clip\s*:\s*rect\(\s*0"
)
_TAG = re.compile(r"<(\w+)\b([^<>]{0,300})>")  # an opening tag: each try stops at the next "<" (linear)
# An HTML tag, opening or closing, with its attributes (a tooltip's ``title=``, an input's ``value=``
# are never text on the page): a tag of an HTML element, or any tag whose attributes are quoted
# name="value" pairs ("$x<b$" and "$a<b, c>d$" are maths: no element and no quoted attribute).
_ELEMENTS = (
    "span|div|p|font|b|i|em|strong|u|small|big|sub|sup|mark|br|hr|center|section|summary|label|table|tr|td|th"
    "|thead|tbody|tfoot|caption|col|colgroup|ul|ol|li|dl|dt|dd|h[1-6]|a|code|pre|blockquote|ins|tt|abbr|acronym"
    "|cite|dfn|kbd|samp|var|q|time|data|output|input|button|select|option|textarea|form|img|figure|figcaption"
    "|nav|article|aside|header|footer|main|ruby|rt|rp|bdi|bdo|wbr|iframe|object|embed|svg|text|meta|link"
    "|marquee|blink|nobr|article|address|progress|meter|dialog|slot|canvas|picture|source|area|map|param"
)
_MARKUP_TAG = re.compile(
    rf"</?(?:{_ELEMENTS})(?:\s[^<>]{{0,300}})?/?>"
    r"|</?[A-Za-z][\w-]{0,30}(?:\s+[\w:-]+\s*=\s*(?:\"[^\"<>]{0,300}\"|'[^'<>]{0,300}'))+\s*/?>",
    re.IGNORECASE,
)
_VOID = frozenset(("input", "img", "br", "hr", "meta", "link", "wbr", "area", "source", "param", "embed", "col"))
# MathJax's CSS on maths: ``\style{visibility:hidden}{...}`` (or ``\class``/``\cssId`` with it) hides the group.
_STYLED = re.compile(r"\\(?:style|class|cssId)\s*\{([^{}]{0,300})\}\s*\{")
_HIDDEN_CLASS = re.compile(r"(?<![-\w])(?:hidden|invisible|sr-only|visually-hidden|d-none|hide)(?![-\w])", re.I)
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
_HIDING_NAMES = (
    r"[hv]?phantom|if(?:true|false|num|dim|odd|x|cat|case|defined|csname|mmode|vmode|hmode|inner|void|hbox"
    r"|vbox|eof|fontchar)?|style|class|cssId|verb|color|textcolor|scalebox|resizebox|sout|st|[bx]?cancel|xout|cancelto|[gex]?def|let"
    r"|(?:re)?newcommand|providecommand|futurelet|csname|expandafter|(?:math)?chardef"
    r"|(?:New|Renew|Provide)(?:Expandable)?DocumentCommand|Declare\w*|catcode"
)
_LATEX_HINT = re.compile(r"\\(?:begin|" + _HIDING_NAMES + r")(?![A-Za-z])")


def _group_end(text: str, index: int) -> int:
    """Where the brace group open at `index` closes (after its brace); the end of `text` if never."""
    depth = 1
    while index < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        index += 1
    return index


def _group_spans(text: str, opener: re.Pattern) -> list[tuple[int, int]]:
    """(start, end) from each match of `opener` to the brace that closes the group it opened (or the
    group it stands in, for ``\\color``, which ends with it); an unclosed one runs to the end."""
    spans, position = [], 0
    while (found := opener.search(text, position)) is not None:
        position = _group_end(text, found.end())
        spans.append((found.start(), position))
    return spans


def defines_macros(text: str) -> bool:
    """Whether `text` defines or redefines a macro (module docstring)."""
    return _LATEX_HINT.search(text) is not None and _MACRO.search(text) is not None


def manipulates(text: str) -> bool:
    """Whether `text` defines macros or, in its last ADDRESS_CHARS, addresses the grader (module
    docstring): no answer then."""
    return defines_macros(text) or addresses_grader(text[-ADDRESS_CHARS:].lower())


# What can make `reader_view` differ from the text, a superset of its own tests below: a character
# that opens hidden markup (a comment, code, a tag, struck-out text, a link definition) or a LaTeX
# command that hides or defines. `benchmarks.grading.math_answer`'s gate is built from them: a text
# with none of them is read as written. (Marks of one or two characters: a C-level scan each, far
# cheaper than a regex character class.)
HIDING_MARKS = ("%", "`", "<", "]:", "~~")


def hiding_marks(text: str) -> bool:
    """Whether `text` holds one of HIDING_MARKS (unrolled; a two-character mark behind a memchr of
    its first character, the common miss)."""
    return "%" in text or "`" in text or "<" in text or ("]" in text and "]:" in text) or ("~" in text and "~~" in text)


# `_LATEX_HINT` with only the environments that `_ENVIRONMENT` hides (a matrix is shown).
HIDING_COMMANDS = re.compile(r"\\(?:begin\{(?:comment|verbatim|lstlisting|minted)|" + _HIDING_NAMES + r")(?![A-Za-z])")


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
    ("`", _INLINE_CODE),
    ("%", _COMMENT),
    ("]:", _LINK_DEFINITION),
    ("[^", _FOOTNOTE_MARK),  # once a definition made the text markup (`hiding_marks`): no value of the answer
)


def footnotes(text: str) -> str:
    """The text of the footnotes `text` defines ("[^1]: ..."), one per line: shown below the answer,
    a footnote that takes it back takes it back (`benchmarks.grading.math_answer`)."""
    return "\n".join(found.group(1) for found in _FOOTNOTE.finditer(text)) if "[^" in text else ""


def _spaces(found: re.Match) -> str:
    return " " * (found.end() - found.start())


def _blanked(text: str) -> str:
    current = text  # blanked pattern by pattern (a span blanked first is not read by the next)
    for trigger, pattern in _TRIGGERED:
        if trigger in current:
            current = pattern.sub(_spaces, current)
    if "\\if" in current:
        current = _blank_spans(current, unselected_branches(current))
    if "\\" in current:
        for opener in (_PHANTOM, _WHITE_TEXT, _STRIKE_COMMAND):
            current = _blank_spans(current, _group_spans(current, opener))
        if "\\style" in current or "\\class" in current or "\\cssId" in current:
            current = _blank_spans(current, _styled_hidden(current))
    if "<" in current and ">" in current:
        current = _blank_spans(current, _hidden_elements(current))
        current = _MARKUP_TAG.sub(_spaces, current)  # the tags of what is shown are not shown either
    return current


def _styled_hidden(text: str) -> list[tuple[int, int]]:
    """(start, end) of each MathJax ``\\style``/``\\class``/``\\cssId`` group whose CSS hides it."""
    spans, covered = [], 0
    for found in _STYLED.finditer(text):
        css = found.group(1)
        if found.start() >= covered and (_HIDDEN_ATTRIBUTES.search(css) or _HIDDEN_CLASS.search(css)):
            covered = _group_end(text, found.end())
            spans.append((found.start(), covered))
    return spans


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
        if name in _VOID:  # an element with no content: only the tag (and its attributes) hides
            covered = tag.end()
            spans.append((tag.start(), covered))
            continue
        closing = lowered.find(f"</{name}", tag.end())
        covered = len(text) if closing < 0 else lowered.find(">", closing) + 1 or len(text)
        spans.append((tag.start(), covered))
    return spans
