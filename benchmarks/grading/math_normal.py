"""Ways of writing a right answer that a careful reader credits and math-verify alone does not.

    normalized("1{,}000{,}000", "1000000")                     # "1000000": thousands separators
    normalized("\\mathbf{12}", "12")                           # "12": bold, \\hspace, \\$ dropped
    normalized("\\textbf{(C)}\\ 12", "12", "... (C) 12 ...")   # "12": the choice and its value agree
    normalized("\\frac{-1\\pm\\sqrt5}{2}", "\\frac{-1+\\sqrt5}2, \\frac{-1-\\sqrt5}2")  # both roots, listed
    for_verify("2\\frac{1}{3}")                                # "(2+\\frac{1}{3})": a mixed number's value

`normalized` rewrites an answer, knowing its reference and problem, before any check:
- characters read as digits (`benchmarks.grading.math_glyphs`: other scripts' and full-width digits,
  superscripts, vulgar fractions) and a number in English words ("twelve", ``\\text{twelve}``, "two
  thirds"), the last side of an equation in words too (``\\frac{6 \\cdot 5}{2} = \\text{fifteen}``); a mixed
  number in plain text ("1 1/2") is one number, as ``1\\frac{1}{2}`` is;
- typographic variants of one symbol (`typographic`): the Unicode minus, en and em dashes used as
  minus signs, ``\u00d7``, ``\u00b7``, ``\u00f7``, the root sign ``\u221a``; a number in ``\\text{}``; a decimal
  mark in braces (``0{.}35``, as ``{,}`` is a thousands separator);
  ``{a \\over b}`` is ``\\frac{a}{b}``; a degree written
  ``\u00b0``, ``\\degree``, ``^{\\circ}``, ``^\\circ`` or "degrees" is the number itself where the
  reference is a plain number, and the reference's own spelling where it has one;
- ``\\mathbf{}``, ``\\textbf{}``, ``\\boldsymbol{}``, ``\\bm{}`` are unwrapped; ``\\hspace{}``, ``\\vspace{}``,
  ``\\kern``, ``\\mkern``, ``\\displaystyle`` and a leading currency sign are dropped;
- thousands separators (``{,}``, ``,``, ``\\,``, ``\\ ``, ``~``, a space, before groups of exactly three
  digits) are removed where the reference is no list of several values (``1\\,000``: 1000; ``9\\,6``
  is left alone: the side-by-side check refuses it);
- a multiple-choice answer (``(C)``, ``\\textbf{(C)}\\ 12``, ``C: 12``) is read against the problem's
  choices: the letter where the reference is a letter, else the value; a letter whose listed value
  contradicts the value written beside it is left as it is (and matches nothing);
- ``\\pm`` (once) becomes the two values it stands for where the reference lists both;
- "2 or 3" becomes the list "2, 3" where the reference is a list (with one value it is a hedge).

`for_verify` only prepares the text math-verify parses (answer and reference alike): a mixed
number ``2\\frac13`` is 2 + 1/3, where LaTeX's juxtaposition would read a product; ``\\binom62`` is
``\\binom{6}{2}``, which math-verify does not read without braces; degrees inside a trigonometric
function are radians (``\\cos 60^\\circ`` is 1/2, where math-verify reads cos(60)).
"""

import re

from benchmarks.grading.math_conventions import conventions, repeating
from benchmarks.grading.math_glyphs import ascii_forms, fraction_word, number_word

_BOLD = re.compile(r"\\(?:mathbf|textbf|boldsymbol|bm|mathbb)\s*\{([^{}]*)\}")
_SPACING = re.compile(r"\\[hv]space\*?\s*\{[^{}]*\}|\\m?kern\s*-?[\d.]+\s*[a-z]{2}|\\displaystyle|\\textstyle")
_CURRENCY = re.compile(r"^(?:\\\$|\$|\\text\{\s*\\?\$\s*\})\s*(?=[\d.])")
_THOUSANDS = re.compile(r"(?<![\d.])(\d{1,3})((?:(?:\{,\}|,\\!|,|\\,|\\ |~|\\;| )\d{3})+)(?![\d])")
_GROUP_SEPARATOR = re.compile(r"\{,\}|,\\!|,|\\,|\\ |~|\\;| ")
_CHOICE_ANSWER = re.compile(
    r"\(?\s*([A-E])\s*\)\s*(?:[:.]|\\[ ,;:!]|\\q?quad|~|\s)*(.*)|([A-E])\s*(?:[:.]\s*(.*))?", re.DOTALL
)
_LATEX_SPACE = re.compile(r"\\[ ,;:!]|~")
_CHOICE_LABEL = re.compile(r"\(\s*([A-E])\s*\)")
_TEXT = re.compile(r"\\(?:text|mbox|mathrm|textrm)\s*\{([^{}]*)\}")
_OR = re.compile(r"\s*(?:\\text\{\s*or\s*\}|\\textrm\{\s*or\s*\}|\\mbox\{\s*or\s*\}|\bor\b|\\lor)\s*")
_MIXED = re.compile(r"(?<![\w}^_.\\])(-?)(\d+)\s*\\[dt]?frac\s*(\{\s*\d+\s*\}|\d)\s*(\{\s*\d+\s*\}|\d)")
_TRIG = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc)\b")
_DEGREES = re.compile(r"(\d+(?:\.\d+)?)\s*\^\s*(?:\{\s*\\circ\s*\}|\\circ)")
_BINOM_DIGITS = re.compile(r"\\[dt]?binom\s*(\d)\s*(\d)")
_PLAIN_MIXED = re.compile(r"\s*(-?\d+)\s+(\d+)\s*/\s*(\d+)\s*")
_LONE_VARIABLE_SIDE = re.compile(r"^\s*(?:[A-Za-z]|\\[A-Za-z]+)\s*=\s*")
_SYMBOLS = {"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u00d7": "\\times ", "\u00b7": "\\cdot ", "\u00f7": "\\div "}
_SYMBOLS |= {"\u2010": "-", "\u2011": "-", "\u2012": "-", "\ufe63": "-", "\uff0d": "-"}
_SYMBOLS |= {"\u22c5": "\\cdot ", "\u2219": "\\cdot "}
_SYMBOLS |= {"\u221e": "\\infty ", "\u03c0": "\\pi ", "\u2215": "/", "\u2044": "/", "\u00a0": " ", "\u2009": " "}
_SYMBOLS |= {"\u202f": " ", "\u2002": " ", "\u2003": " ", "\u2264": "\\le ", "\u2265": "\\ge ", "\u222a": "\\cup "}
_SYMBOL = re.compile("|".join(_SYMBOLS))
_ROOT = re.compile("\u221a\\s*(\\d+|[A-Za-z]|\\{[^{}]*\\}|\\([^()]*\\))")  # the Unicode root sign
_TEXT_NUMBER = re.compile(r"\\(?:text|mathrm|textrm|mbox)\s*\{\s*(-?[\d.,]+)\s*\}")
_OVER_GROUP = re.compile(r"\{([^{}]*?)\\over(?![A-Za-z])([^{}]*)\}")
_OVER = re.compile(r"^([^{}]*?)\\over(?![A-Za-z])([^{}]*)$")
_DEGREE_FORMS = re.compile(
    r"\s*(?:\u00b0|\\degree(?![A-Za-z])|\^\s*\{\s*\\circ\s*\}|\^\s*\\circ(?![A-Za-z])"
    r"|\\text\{\s*(?:\u00b0|degrees?)\s*\}|\s+degrees?\b)"
)
_DEGREE_NUMBER = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*(?:\^\s*\\circ)?\s*")


def is_list(reference: str) -> bool:
    """Whether the reference lists several values ("2, 3"), outside brackets or not."""
    return "," in _THOUSANDS.sub(lambda m: m.group(1) + _GROUP_SEPARATOR.sub("", m.group(2)), reference)


def _unwrap(text: str) -> str:
    previous = None
    while previous != text:
        previous, text = text, _BOLD.sub(r"\1", text)
    return _SPACING.sub("", text).strip()


def _join_thousands(text: str) -> str:
    return _THOUSANDS.sub(lambda m: m.group(1) + _GROUP_SEPARATOR.sub("", m.group(2)), text)


def problem_choices(problem: str | None) -> dict[str, str]:
    """The choices (A)-(E) a problem lists, letter -> the value written after it ("" when unreadable)."""
    if not problem:
        return {}
    labels = list(_CHOICE_LABEL.finditer(problem))
    if len({label.group(1) for label in labels}) < 3:
        return {}  # not a multiple-choice problem: "(a)" parts, a lone "(C)"
    choices = {}
    for label, following in zip(labels, [*labels[1:], None]):
        value = problem[label.end() : following.start() if following else len(problem)]
        value = _unwrap(value.replace("\\qquad", " ").replace("\\quad", " "))
        value = value.replace("$", "").replace("\\textbf{", "").replace("\\mathrm{", "")
        value = _LATEX_SPACE.sub(" ", value).strip(" }{\n\t.,;")
        choices.setdefault(label.group(1), value)
    return choices


def _letter(reference: str) -> str | None:
    bare = _TEXT.sub(r"\1", reference).strip().strip("()").strip()
    return bare if re.fullmatch(r"[A-E]", bare) else None


def _choice(answer: str, reference: str, problem: str | None) -> str:
    """The answer read against the problem's choices (module docstring)."""
    choices = problem_choices(problem)
    if not choices:
        return answer
    found = _CHOICE_ANSWER.fullmatch(_TEXT.sub(r"\1", answer).strip())
    if found is None:
        return answer
    letter = found.group(1) or found.group(3)
    value = (found.group(2) if found.group(1) else found.group(4)) or ""
    value = _LATEX_SPACE.sub(" ", value).strip().strip("$").strip()
    if letter not in choices:
        return answer
    if _letter(reference) is not None:
        return letter if not value or _same(value, choices[letter]) else answer
    if not value:
        return choices[letter] or answer
    return value if _same(value, choices[letter]) or not choices[letter] else answer


def _same(a: str, b: str) -> bool:
    return "".join(_join_thousands(a).split()) == "".join(_join_thousands(b).split())


def _plus_minus(answer: str) -> str:
    """ "\\frac{-1\\pm\\sqrt5}{2}" -> "\\frac{-1+\\sqrt5}{2}, \\frac{-1-\\sqrt5}{2}" (one \\pm only)."""
    side = _LONE_VARIABLE_SIDE.sub("", answer)
    if side.count("\\pm") != 1 or "=" in side:
        return answer
    return f"{side.replace(chr(92) + 'pm', '+')}, {side.replace(chr(92) + 'pm', '-')}"


_SPACE_PERCENT = re.compile(r"(?:\s|~|\\[,;:! ]|\\(?:thin|med|thick)space\b)+(?=\\%)")


def typographic(text: str) -> str:
    """One spelling per symbol: Unicode minus and dashes, times, dots, the root sign, ``\\over``, a
    number in ``\\text{}``, degrees as ``^\\circ``."""
    if not text.isascii():
        text = ascii_forms(text)  # digits of any script, full-width forms, superscripts, vulgar fractions
        text = _SYMBOL.sub(lambda m: _SYMBOLS[m.group()], text)
        text = _ROOT.sub(lambda m: "\\sqrt{" + m.group(1).strip("{}()") + "}", text)
    if "{" in text and ("text" in text or "rm" in text or "mbox" in text):
        text = _TEXT_NUMBER.sub(r"\1", text)  # "\\text{12}" is the number 12
    if "{." in text and text.count("{.}") == 1:  # "0{.}35": a decimal mark in braces (TeX spacing), as "{,}" is
        text = text.replace("{.}", ".")
    if "\\over" in text:

        def fraction(found: re.Match) -> str:
            return f"\\frac{{{found.group(1).strip()}}}{{{found.group(2).strip()}}}"

        text = _OVER.sub(fraction, _OVER_GROUP.sub(fraction, text))
    if "%" in text and "\\" in text:  # "25\\,\\%": spacing before the percent sign is no part of the value
        text = _SPACE_PERCENT.sub("", text)
    if "\u00b0" in text or "degree" in text or "circ" in text:
        text = _DEGREE_FORMS.sub(lambda _: "^\\circ", text)
    return text


def _degrees(answer: str, reference: str) -> str:
    """A number of degrees as the reference writes it (module docstring)."""
    number = _DEGREE_NUMBER.fullmatch(answer)
    if number is None or "circ" not in answer:
        return answer
    spelled = _DEGREE_NUMBER.fullmatch(typographic(reference))
    if spelled is not None and spelled.group(1) == number.group(1):
        return reference  # the same number of degrees
    return number.group(1) if re.fullmatch(r"\s*-?\d+(?:\.\d+)?\s*", reference) else answer


def normalized(answer: str, reference: str, problem: str | None = None) -> str:
    """`answer` rewritten as the module docstring says; unchanged when no rule applies."""
    text = _degrees(typographic(_CURRENCY.sub("", _unwrap(answer))), reference)
    text = conventions(text, reference)  # decimal commas, "(3;1)", "]2, 5[" (`benchmarks.grading.math_conventions`)
    if text[-1:].isalpha() or text.endswith("}"):  # "\\text{twelve}", "two thirds": a number in words
        head, equals, last = text.rpartition("=")  # "\\frac{6 \\cdot 5}{2} = \\text{fifteen}": its last side
        words = _TEXT.sub(r"\1", last).strip()
        spelled = number_word(words) or fraction_word(words)
        if spelled is not None:
            text = f"{head}{equals} {spelled}" if equals else spelled
    mixed = _PLAIN_MIXED.fullmatch(text)
    if mixed is not None and int(mixed.group(2)) < int(mixed.group(3)):  # "1 1/2": a mixed number in plain text
        text = f"{mixed.group(1)}\\frac{{{mixed.group(2)}}}{{{mixed.group(3)}}}"
    listed = is_list(reference)
    if not listed:
        text = _join_thousands(text)
    text = _choice(text, reference, problem)
    if listed and "\\pm" not in reference:
        text = _plus_minus(text)
        if _OR.search(text):
            text = ", ".join(part.strip() for part in _OR.split(text) if part.strip())
    return text


def for_verify(text: str) -> str:
    """What math-verify parses: mixed numbers as sums, ``\\binom62`` with its braces, a repeating decimal's
    value (`benchmarks.grading.math_conventions.repeating`) (module docstring)."""
    text = repeating(text)
    if "binom" in text:
        text = _BINOM_DIGITS.sub(r"\\binom{\1}{\2}", text)
    if "circ" in text and _TRIG.search(text):
        text = _DEGREES.sub(r"(\1\\pi/180)", text)
    if "frac" not in text:
        return text
    return _MIXED.sub(lambda m: f"{m.group(1)}({m.group(2)}+\\frac{m.group(3)}{m.group(4)})", text)
