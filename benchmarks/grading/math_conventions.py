"""Number, interval and tuple conventions of other countries and schools, read as the answer's value.

    conventions("1{,}75", "1.75")            # "1.75": a decimal comma
    conventions("0,4", "\\frac{2}{5}")       # "0.4": one number with a comma that is no thousands separator
    conventions("]2, 5[", "(2,5)")           # "(2, 5)": the ISO open interval
    conventions("[-1;3[", "[-1,3)")          # "[-1, 3)": half-open, semicolon separated
    conventions("(3\\,;\\,1)", "(3,1)")      # "(3, 1)": an ordered pair with a semicolon
    conventions("(1,5; 2)", "(1.5,2)")       # "(1.5, 2)": with semicolons between items, commas are decimal marks
    repeating("0.58\\overline{3}")           # "\\frac{7}{12}": a repeating decimal's value (for math-verify only)

A careful reader reads each of these as the value it stands for in the convention it is written in:
- a decimal comma: a comma (``,`` or ``{,}``) between digits that is no thousands separator: the digits
  after it are not a group of exactly three, or the number before it is 0 (``0,375``, ``0{,}375``); a plain
  ``,`` only in an answer that is one number (a list "3,5" where one value is asked stays two values,
  which `benchmarks.grading.math_nonanswer` refuses), and never where the reference is a list;
- items separated by semicolons inside brackets (``(3;1)``, ``[2;5]``, ``\\{1;2;3\\}``, French, German,
  Russian, Vietnamese schools): the semicolon is the separator, so a comma inside an item is a decimal mark;
- the ISO 31-11 / French interval brackets: ``]a, b[`` is open, ``]a, b]`` and ``[a, b[`` half-open
  (with ``\\left``/``\\right``, ``\\rbrack``/``\\lbrack``, ``\\,`` spacing, unions of them);
- a repeating decimal (``0.\\overline{3}``, ``0.58\\overline{3}``, ``\\bar{}``, ``\\dot{}`` over one digit):
  its exact value, which math-verify does not read. It is still a decimal, so strict grading refuses it
  for an exact reference unless the question asks for a decimal (`benchmarks.grading.math_strict`); and
  where the problem writes repeating decimals itself (it asks to convert them), one in the answer is the
  question's notation given back, refused in both modes (`repeats_problem`).
`conventions` rewrites an answer before any check (`benchmarks.grading.math_normal.normalized`);
`repeating` only what math-verify parses (`benchmarks.grading.math_normal.for_verify`). Both are
linear regex passes over a short answer.
"""

import re
from fractions import Fraction

_SPACE = re.compile(r"\\[,;:! ]|\\q?quad\b|~")
# A braced decimal comma, "1{,}75"; a plain one, "0,4", in an answer that is one number.
_BRACED_COMMA = re.compile(r"(?<![\d.}])(-?\d+)\{,\}(\d+)(?![\d{.])")  # not "12{,}5.0", not "1{,}234{,}5"
_ONE_NUMBER = re.compile(r"(\s*(?:[A-Za-z]\s*=\s*)?[-\u2212]?)(\d+),(\d+)(\s*(?:\\%|%|\^\s*\\circ)?\s*)")
# One bracketed group: an opening bracket, items, a closing bracket (either way round: "]a, b[").
_OPEN = r"(\\left\s*)?(\(|\[|\]|\\\{|\\lbrack|\\rbrack)"
_CLOSE = r"(\\right\s*)?(\)|\]|\[|\\\}|\\rbrack|\\lbrack)"
_GROUP = re.compile(_OPEN + r"([^()\[\]{}]*?)" + _CLOSE)
_DECIMAL_IN_ITEM = re.compile(r"(\d),(\d)")
_BRACKETS = {"\\lbrack": "[", "\\rbrack": "]"}


def _decimal_comma(whole: str, digits: str) -> bool:
    """Whether a comma between `whole` and `digits` is a decimal mark (module docstring)."""
    return len(digits) != 3 or whole.lstrip("-") == "0"


def _group(found: re.Match) -> str:
    """One bracketed group in the convention it is written in, rewritten in the reference's."""
    left, opening, items, right, closing = found.groups()
    opening, closing = _BRACKETS.get(opening, opening), _BRACKETS.get(closing, closing)
    separated = ";" in items
    if separated:  # "(1,5; 2)": the semicolon separates, a comma between digits is a decimal mark
        items = ", ".join(part.strip() for part in _DECIMAL_IN_ITEM.sub(r"\1.\2", items).split(";"))
    iso = opening == "]" or closing == "["
    if iso and ("," in items or separated):  # "]2, 5[": the ISO open ends
        opening = "(" if opening == "]" else opening
        closing = ")" if closing == "[" else closing
    elif not separated:
        return found.group()
    return f"{left or ''}{opening}{items}{right or ''}{closing}"


def conventions(text: str, reference: str) -> str:
    """`text` with decimal commas, semicolon separators and ISO interval brackets read (module docstring)."""
    if "," not in text and ";" not in text:
        return text
    if "{,}" in text:
        text = _BRACED_COMMA.sub(
            lambda m: f"{m.group(1)}.{m.group(2)}" if _decimal_comma(m.group(1), m.group(2)) else m.group(), text
        )
    if ";" in text or "]" in text or "\\rbrack" in text:
        text = _GROUP.sub(_group, _SPACE.sub(" ", text) if ";" in text else text)
    if "," in text and "," not in reference:
        one = _ONE_NUMBER.fullmatch(text)
        if one is not None and _decimal_comma(one.group(2), one.group(3)):
            text = f"{one.group(1)}{one.group(2)}.{one.group(3)}{one.group(4)}"
    return text


_REPEATING = re.compile(
    r"(?<![\d.])(-?)(\d*)\.(\d*)\s*(?:\\overline|\\bar|\\dot|\\overset\s*\{\s*\.\s*\})\s*(?:\{\s*(\d+)\s*\}|(\d))"
)


def _repeating_value(found: re.Match) -> str:
    sign, whole, fixed, repeated = (
        found.group(1),
        found.group(2) or "0",
        found.group(3),
        found.group(4) or found.group(5),
    )
    value = Fraction(int(whole)) + Fraction(int(fixed or "0"), 10 ** len(fixed))
    value += Fraction(int(repeated), (10 ** len(repeated) - 1) * 10 ** len(fixed))
    return f"{sign}\\frac{{{value.numerator}}}{{{value.denominator}}}"


def repeating(text: str) -> str:
    """A repeating decimal as its exact value, for math-verify (module docstring)."""
    if "\\overline" not in text and "\\bar" not in text and "\\dot" not in text and "\\overset" not in text:
        return text
    return _REPEATING.sub(_repeating_value, text)


def repeats_problem(answer: str, problem: str | None) -> bool:
    """Whether `answer` is a repeating decimal where the problem writes repeating decimals (module docstring)."""
    return bool(problem) and _REPEATING.search(answer) is not None and _REPEATING.search(problem) is not None
