"""Answers that are right in value but are not answers: restated questions, unevaluated values, wrong bases.

    refusal("\\sqrt{242}", "11\\sqrt2", "Simplify $\\sqrt{242}$.")   # "restates the problem"
    refusal("99^2+99+1", "9901")                                     # "unevaluated (the reference is a value)"
    refusal("11\\sqrt{2}", "11\\sqrt2", "Simplify $\\sqrt{242}$.")   # None: an answer
    base_verdict("52_{10}", "52_8")                                  # False: another base
    base_verdict("58_9 - 18_9", "40_9")                              # False: not a numeral
    base_verdict("\\frac12", "0.5")                                  # None: no base involved

math-verify compares values, so on its own it credits an answer that only copies the question
(``\\sqrt{242}`` equals ``11\\sqrt2``, ``\\dbinom{31}{28}`` equals 4495) and it drops subscripts (so
``52_{10}`` equals ``52_8``). The grader asks these first, and math-verify only when they pass.

`refusal` refuses, with a reason:
- an answer whose expression occurs in the problem ("Simplify $\\sqrt{242}$" answered ``\\sqrt{242}``,
  "Express $\\frac{3}{8}$ as a decimal" answered ``\\frac{3}{8}``), unless it is written as the reference
  is. Only expressions count (an operator, a fraction, a root, a subscript ...): a lone number or
  symbol that also occurs in the problem is a legitimate answer. Expressions are compared as token
  sequences, so spacing, ``\\left``/``\\right``, ``\\dfrac``/``\\frac``, ``\\cdot``/``\\times`` and braces around
  one token do not matter;
- an answer that is not itself a value where the reference is one: a reference that is a number
  (``9901``, ``-0.5``, ``10\\%``, ``\\$18.90``, ``90^\\circ``) or a fraction of integers (``\\frac{9}{5}``,
  ``-3/4``) wants a number, a fraction of integers in lowest terms or a mixed number (``1\\frac{4}{5}``),
  not ``99^2+99+1``, ``\\dbinom{31}{28}``, ``\\sqrt{16}`` or ``\\frac{16}{42}``; an integer reference wants a
  number, not ``\\frac{10}{2}``;
- arithmetic on two numbers left undone that the reference does not have (``\\sqrt{121 \\cdot 2}`` for
  ``11\\sqrt2``, ``15x - 81 + 1`` for ``15x - 80``, ``2^{10}``), problem or not;
- an answer not in the form the problem asks for: "as a common fraction" (or "improper fraction",
  "as a fraction") refuses decimals and mixed numbers, "as a decimal" refuses fractions, "in simplest
  radical form" refuses a square root of an integer with a square factor (``\\sqrt{117}``).
For an equation (``x = 5``, ``99^2+99+1 = 9901``) its last side is what is judged.

`base_verdict` settles every pair where the reference or the answer is a numeral with a base
subscript (``52_8``, ``4210_{5}``): right only when the answer is the reference's digits, with no base
or the same base (a reference without one is in the base the problem asks for, else base 10:
``11001_2`` for "Write 25 in base 2", reference ``11001``). Other pairs are left to math-verify (None).
"""

import functools
import math
import re

PROBLEM_CHARS = 20_000  # the head of a problem that is searched for restated expressions
_SEP = "\x1f"  # joins tokens, so that a substring search matches whole tokens only

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\d+(?:\.\d+)?|\S")
_DROPPED = {"{", "}", "$", "\\left", "\\right", "\\!", "\\,", "\\;", "\\:", "\\ ", "\\displaystyle", "\\("}
_DROPPED |= {"\\)", "\\[", "\\]"}
_SAME = {
    "\\dfrac": "\\frac",
    "\\tfrac": "\\frac",
    "\\dbinom": "\\binom",
    "\\tbinom": "\\binom",
    "\\times": "*",
    "\\cdot": "*",
    "\\div": "/",
    "\\le": "\\leq",
    "\\ge": "\\geq",
    "\\leqslant": "\\leq",
    "\\geqslant": "\\geq",
}
# Tokens that make an answer an expression (something that could restate the question).
OPERATORS = {"+", "-", "*", "/", "^", "!", "_", "\\frac", "\\sqrt", "\\binom", "\\overline", "\\sum", "\\prod"}
OPERATORS |= {"\\log", "\\ln", "\\sin", "\\cos", "\\tan", "\\int", "\\lfloor", "\\lceil", "\\pmod", "\\mod"}

# Decorations a value may carry: units in \text{}, currency, percent, degrees, thin spaces.
_DECORATION = re.compile(
    r"\\(?:text|mbox|mathrm|textbf)\s*\{[^{}]*\}(?:\^\{?\d\}?)?|\\?\$|\\%|%|\^\s*\{?\\circ\}?|\\circ|\\[,!;: ]"
)
_TRAILING_WORDS = re.compile(r"(?:\s+[A-Za-z]+\.?)+\s*\Z")  # "864 square inches"
_NUMBER = r"[+-]?(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)(?:\\overline\{?\d+\}?)?"
_INTEGER = r"[+-]?\d+"
_FRACTION = (
    rf"[+-]?(?:\d+)?\\[dt]?frac(?:\{{{_INTEGER}\}}|\d)(?:\{{{_INTEGER}\}}|\d)"  # \frac{9}{5}, 1\frac45, \frac{-2}{3}
    rf"|{_INTEGER}/{_INTEGER}|\({_INTEGER}\)/\({_INTEGER}\)"
)
_VALUE = re.compile(rf"(?:{_NUMBER}|{_FRACTION})")
_PLAIN_NUMBER = re.compile(_NUMBER)
_FRACTION_PARTS = re.compile(r"([+-]?)(\d+)?\\[dt]?frac(\{[+-]?\d+\}|\d)(\{[+-]?\d+\}|\d)|([+-]?\d+)/(\d+)")
ROOT_OF_INTEGER = re.compile(r"\\sqrt\s*(?:\{\s*(\d{1,12})\s*\}|(\d))")
_ASKS_FRACTION = re.compile(r"common fraction|improper fraction|as a fraction", re.IGNORECASE)
_ASKS_DECIMAL = re.compile(r"as a decimal|decimal to the nearest|to the nearest (?:tenth|hundredth|thousandth)", re.I)
_ASKS_SIMPLEST_RADICAL = re.compile(r"simplest radical form", re.IGNORECASE)
_NUMBER_TOKEN = re.compile(r"\d+(?:\.\d+)?")
# An operation between two numbers is left undone when what lies either side cannot bind tighter:
# op -> (tokens allowed before its left number, tokens allowed after its right number).
_OPEN, _CLOSE = {None, "{", "(", "[", ",", "="}, {None, "}", ")", "]", ",", "="}
_LOOSE = {
    "+": (_OPEN | {"+", "-"}, _CLOSE | {"+", "-"}),
    "-": (_OPEN | {"+", "-"}, _CLOSE | {"+", "-"}),
    "*": (_OPEN | {"+", "-", "*"}, _CLOSE | {"+", "-", "*"}),
}
_BASED = re.compile(r"\(?([0-9A-Z]+)\)?_\{?(\d+)\}?")


def tokens(latex: str, keep_braces: bool = False) -> list[str]:
    """The comparison form of a LaTeX expression: tokens, spacing and synonyms normalised away."""
    tokens = []
    for token in _TOKEN.findall(latex):
        token = _SAME.get(token, token)
        if token in _DROPPED and not (keep_braces and token in "{}"):
            continue
        if token.isdigit():
            token = token.lstrip("0") or "0"  # "07+45" restates "7+45"
        tokens.append(token)
    return tokens


@functools.lru_cache(maxsize=1024)
def _problem_tokens(problem: str) -> str:
    return _SEP + _SEP.join(tokens(problem[:PROBLEM_CHARS])) + _SEP


def split_top_level(text: str, separators: str) -> list[str]:
    """`text` split at any of the characters `separators` outside braces, brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
        elif char in separators and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def last_side(answer: str) -> str:
    """The side of an equation that is its answer: the last one, unless that is a lone variable
    ("5 = x"); the answer itself when it is no equation (or an inequality such as "x <= 5")."""
    if "=" not in answer or re.search(r"[<>]|\\[lg]eq?\b|\\neq", answer):
        return answer.strip()
    sides = [side.strip() for side in split_top_level(answer, "=")]
    if len(sides) > 1 and re.fullmatch(r"[A-Za-z]|\\[A-Za-z]+", sides[-1]):
        return sides[0]
    return sides[-1]


def _bare(text: str) -> str:
    """`text` without decorations: units, currency, percent, degrees, spacing."""
    return "".join(_TRAILING_WORDS.sub("", _DECORATION.sub("", text)).split())


def is_value(text: str) -> bool:
    """A number or a fraction of integers, once decorations are removed."""
    return _VALUE.fullmatch(_bare(text)) is not None


def _fraction(text: str) -> tuple[bool, int, int] | None:
    """(mixed, numerator, denominator) of a fraction of integers ("\\frac{16}{42}", "1\\frac45", "-3/4")."""
    parts = _FRACTION_PARTS.fullmatch(_bare(text))
    if parts is None:
        return None
    sign, whole, top, bottom, slash_top, slash_bottom = parts.groups()
    if slash_top is not None:
        return False, abs(int(slash_top)), int(slash_bottom)
    return whole is not None, abs(int(top.strip("{}"))), abs(int(bottom.strip("{}")))


def _evaluated_as(answer: str, reference: str) -> bool:
    """Whether `answer` is a value of the kind `reference` is: a number for an integer reference
    ("\\frac{10}{2}" is not 5 evaluated), any number or a fraction in lowest terms otherwise."""
    if re.fullmatch(r"[+-]?\d+(?:,\d{3})*", _bare(reference)):
        return _PLAIN_NUMBER.fullmatch(_bare(answer)) is not None
    fraction = _fraction(answer)
    if fraction is not None:
        _, top, bottom = fraction
        return math.gcd(top, bottom) == 1
    return is_value(answer)


def square_free(n: int) -> bool:
    """No square factor above 1 (numbers past 10^8 are taken as square-free: too slow to check)."""
    return all(n % (k * k) for k in range(2, math.isqrt(n) + 1)) if n < 10**8 else True


def _form_refusal(answer: str, problem: str) -> str | None:
    """Why `answer` is not in the form `problem` asks for (module docstring), else None."""
    bare = _bare(answer)
    if _ASKS_FRACTION.search(problem):
        fraction = _fraction(answer)
        if (fraction is not None and fraction[0]) or (fraction is None and "." in bare and is_value(bare)):
            return "not the common fraction the problem asks for"
    if _ASKS_DECIMAL.search(problem) and _fraction(answer) is not None:
        return "not the decimal the problem asks for"
    if _ASKS_SIMPLEST_RADICAL.search(problem):
        for root in ROOT_OF_INTEGER.finditer(answer):
            if not square_free(int(root.group(1) or root.group(2))):
                return "not in the simplest radical form the problem asks for"
    return None


def undone_arithmetic(latex: str) -> set[tuple[str, str, str]]:
    """The operations between two plain numbers left for the reader to do: "121 \\cdot 2" in
    "\\sqrt{121 \\cdot 2}", "81 + 1" in "15x - 81 + 1", "2^{10}". An operation counts only where its
    neighbours cannot bind tighter (not "1 - 2/\\pi", "6 + 9i", "2^{25} \\cdot 26!"); a slash is a
    fraction, never counted."""
    items = [None, *tokens(latex, keep_braces=True), None]
    undone = set()
    for i in range(2, len(items) - 2):
        left, op, right = items[i - 1], items[i], items[i + 1]
        if op == "^" and _NUMBER_TOKEN.fullmatch(left or "") and items[i - 2] not in ("^", "_"):
            exponent = items[i + 2] if right == "{" and items[i + 3 : i + 4] == ["}"] else right
            if _NUMBER_TOKEN.fullmatch(exponent or ""):
                undone.add((left, op, exponent))
        elif op in _LOOSE and _NUMBER_TOKEN.fullmatch(left or "") and _NUMBER_TOKEN.fullmatch(right or ""):
            if items[i - 2] in _LOOSE[op][0] and items[i + 2] in _LOOSE[op][1]:
                undone.add((left, op, right))
    return undone


def _unwrapped(items: list[str]) -> list[str]:
    """`items` without parentheses around the whole expression: "(\\sqrt{242})" restates "\\sqrt{242}"."""
    while len(items) > 2 and items[0] == "(" and items[-1] == ")":
        depth = 0
        for index, token in enumerate(items):
            depth += {"(": 1, ")": -1}.get(token, 0)
            if depth == 0 and index < len(items) - 1:
                return items  # "(1)+(2)": the first parenthesis closes early
        items = items[1:-1]
    return items


def _is_expression(items: list[str]) -> bool:
    core = items[1:] if items[:1] in (["-"], ["+"]) else items
    return any(token in OPERATORS for token in core)


def restates(answer: str, reference: str, problem: str | None) -> bool:
    """Whether the answer's expression occurs in the problem, token for token, and is not written
    as the reference is (every mode refuses it; `benchmarks.grading.math_nonanswer` finds the other forms)."""
    if not problem:
        return False
    answer_tokens = tokens(last_side(answer))
    if answer_tokens == tokens(last_side(reference)) or not _is_expression(answer_tokens):
        return False
    return _SEP + _SEP.join(_unwrapped(answer_tokens)) + _SEP in _problem_tokens(problem)


def refusal(answer: str, reference: str, problem: str | None = None) -> str | None:
    """Why strict grading refuses `answer` although it may equal `reference` in value, or None (see
    module docstring): a restatement, a value left unevaluated, arithmetic left undone, or not the
    form the problem asks for."""
    judged, wanted = last_side(answer), last_side(reference)
    if tokens(judged) == tokens(wanted):
        return None  # written as the reference is: an answer, wherever else it occurs
    if restates(answer, reference, problem):
        return "restates the problem"
    if is_value(wanted) and not _evaluated_as(judged, wanted):
        return "unevaluated (the reference is a value)"
    if undone_arithmetic(judged) - undone_arithmetic(wanted):
        return "arithmetic left undone"
    return _form_refusal(judged, problem) if problem else None


def _numeral(text: str) -> tuple[str, int | None] | None:
    """(digits, base) of "52_8", "4210_{5}", "(17)_8"; (digits, None) of "52"; None otherwise."""
    text = _bare(text)
    based = _BASED.fullmatch(text)
    if based:
        digits, base = based.group(1), int(based.group(2))
        if not 2 <= base <= 36 or any(int(digit, 36) >= base for digit in digits):
            return None  # not a numeral in that base ("x_1", "a_2"): a subscripted name
        return digits.lstrip("0") or "0", base
    if re.fullmatch(r"[0-9]+|[0-9A-Z]*[0-9][0-9A-Z]*", text):
        return text.lstrip("0") or "0", None
    return None


def base_verdict(answer: str, reference: str, asked: int | None = None) -> bool | None:
    """True / False when a base subscript is involved (see module docstring), else None; `asked` is the
    base the problem asks for ("in base 2"), that of a reference without a subscript."""
    wanted, given = _numeral(last_side(reference)), _numeral(last_side(answer))
    if wanted is None:
        return None  # the reference is no numeral: math-verify decides
    wanted_digits, wanted_base = wanted
    if wanted_base is None and (given is None or given[1] is None):
        return None  # no base on either side
    if given is None:
        return False  # an expression ("58_9 - 18_9") or anything else where a numeral is wanted
    base = wanted_base or asked or 10
    return given[0] == wanted_digits and (given[1] or base) == base
