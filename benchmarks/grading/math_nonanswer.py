"""Answers that are no answers, whatever their value: numbers side by side, hedges, false equations,
and the question given back in another form. Refused in every grading mode.

    side_by_side("9\\;6", "15")                           # True: the addends copied, read as 9 + 6 by math-verify
    hedge("15\\text{ (or 16)}", "15")                     # "hedge": two answers, one in words
    hedge("3 = 12", "12")                                 # "false equation": its sides differ
    restatement_features("\\cos^{-1}(0)")                 # {"\\arccos", "0"}: what the form is made of

Side by side: two numbers with only spacing (a space, ``\\,``, ``\\;``, ``\\quad``, ``~``) or a degree
sign between them, where the reference is one value. Thousands groups are joined before this
check (`benchmarks.grading.math_normal`), and a mixed number is a number beside a fraction, not two numbers.

Hedge: a ``\\text{}`` (or ``\\mbox{}``) or plain words inside the answer that hedge or qualify it ("or",
"maybe", "approximately", "about", "not", "?"), ``\\approx``, two answers joined by "or" where the
reference is one value, or an equation whose sides are numbers that are not all equal (``3 = 12``:
math-verify keeps the right side). Unit words ("cm", "square feet", "dollars") are no hedge.

Restatement by value and form (`restates_by_form`): the grader has found the answer equal to the
reference; it is still the question given back when some expression of the problem also equals
the reference (the question asked to transform it) and the answer is made of that expression's
parts: it keeps a number, function or structure the problem's expression has and the reference
does not, and adds nothing to it but small numbers (0, 1, 2) and structure. "Expand $(x-1)(x+4)$"
answered ``(x+4)(x-1)``; "Simplify $\\sqrt{75}$" answered ``75^{1/2}``; "Compute $\\arccos 0$"
answered ``\\cos^{-1}(0)``; "What is $9+6$?" answered ``6+9``. An answer written as the reference is
never reaches this check. An answer that has moved a root out of the expression's denominator into
its numerator (`root_below`: "Rationalize $\\frac{10}{\\sqrt5}$" answered ``\\frac{10\\sqrt5}{5}``, not
``10 \\cdot 5^{-1/2}``) has done the work asked, not given the question back (round 7): strict grading
refuses it if it is not reduced.

Partly worked out (`keeps_operations`): an answer left undone gives a problem's expression back only
when an operation or a number of that expression is still in it ("$99^2+99+1$" answered ``9801 + 100``,
"$2^5 \\cdot 3$" answered ``32 \\cdot 3``, "$\\sqrt{242}$" answered ``\\sqrt{121 \\cdot 2}``, "$\\binom92$"
answered ``\\frac{9!}{2!7!}``); one whose operations and numbers are all its own is the solver's work
left undone ("$12 \\times 15$" answered ``120 + 60``: lenient grading credits it, strict refuses it).
"""

import re

from benchmarks.grading.math_form import OPERATORS, tokens

HEDGE_WORDS = ("or", "maybe", "possibly", "perhaps", "probably", "approximately", "approx", "about", "around")
HEDGE_WORDS += ("roughly", "nearly", "almost", "either", "not", "guess", "unsure", "likely", "unclear", "between")
HEDGE_WORDS += ("think", "believe", "might", "could", "suppose", "seems", "assume", "if", "unless", "wrong")
NEUTRAL = {"0", "1", "2", "factored", "(", ")", "[", "]", "+", "-", "*", "/", "^", "_", ",", "="}
FUNCTIONS = {"\\frac", "\\sqrt", "\\binom", "\\log", "\\sin", "\\cos", "\\tan", "\\cot", "\\sec", "\\csc", "\\sum"}
FUNCTIONS |= {"\\prod", "\\int", "\\lim", "!", "\\arcsin", "\\arccos", "\\arctan", "\\exp", "\\pi", "\\overline"}
FUNCTIONS |= {"\\lfloor", "\\lceil", "\\infty", "\\partial", "d/dx"}
# Structures a question asks to remove: kept in the answer, they mark the question given back.
STRUCTURE = {"factored", "\\int", "\\sum", "\\prod", "\\lim", "d/dx", "\\frac", "\\sqrt", "\\binom", "!", "\\log"}
STRUCTURE |= {"\\sin", "\\cos", "\\tan", "\\cot", "\\sec", "\\csc", "\\arcsin", "\\arccos", "\\arctan"}
_VARIABLE = re.compile(r"[A-Za-z]")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SYNONYMS = {"\\ln": "\\log", "\\lg": "\\log", "\\operatorname": None}
_INVERSE_TRIG = {"\\sin": "\\arcsin", "\\cos": "\\arccos", "\\tan": "\\arctan"}

_SPACING = (
    r"(?:\s|\\[,;: >]|\\q?quad\b|\\(?:thin|med|thick|en|em|nobreak)?space\b|~|\^\s*(?:\{\s*\\circ\s*\}|\\circ)"
    r"|\\hspace\*?\{[^{}]*\})"
)
_SIDE_BY_SIDE = re.compile(rf"(?<![_^\d.])(?<![_^]\{{)\d+(?:\.\d+)?{_SPACING}+[+]?\d")  # not a subscript: \log_4 8
_TEXT = re.compile(r"\\(?:text|mbox|textrm|mathrm|textit)\s*\{([^{}]*)\}")
_WORD = re.compile(r"[A-Za-z]+|\?")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_OR = re.compile(r"\\text\{\s*or\s*\}|\\mbox\{\s*or\s*\}|\bor\b|\\lor")
_ARITHMETIC_CHAR = r"(?:[\s\d.+\-*/^(){}]|\\(?:frac|dfrac|cdot|times|sqrt|left|right))"
_NUMERIC_SIDE = re.compile(rf"{_ARITHMETIC_CHAR}*\d{_ARITHMETIC_CHAR}*")


def side_by_side(answer: str, reference: str) -> bool:
    """Two numbers with only spacing between them where the reference is one value."""
    return _SIDE_BY_SIDE.search(answer) is not None and _SIDE_BY_SIDE.search(reference) is None


def _words(answer: str) -> list[str]:
    """The words of an answer: inside ``\\text{}`` and outside any LaTeX command name."""
    inner = " ".join(_TEXT.findall(answer))
    outer = _COMMAND.sub(" ", _TEXT.sub(" ", answer))
    return [word.lower() for word in _WORD.findall(inner + " " + outer) if len(word) > 1 or word == "?"]


def hedge(answer: str, reference: str) -> str | None:
    """ "hedge" or "false equation" when the answer is one (module docstring), else None."""
    if "\\approx" in answer or "\\sim" in answer:
        return "hedge"
    words = [word for word in _words(answer) if word in HEDGE_WORDS or word == "?"]
    if words and not (words == ["or"] * len(words) and "," in reference):
        return "hedge"
    if _OR.search(answer) and "," not in reference:
        return "hedge"
    return None


def numeric_sides(answer: str) -> list[str] | None:
    """The sides of an equation whose sides are all arithmetic on numbers ("3 = 12", "3 \\cdot 4 = 12"),
    else None (no equation, or a side with a variable: "x = 5")."""
    if "=" not in answer or re.search(r"[<>]|\\[lg]eq?\b|\\neq", answer):
        return None
    sides = [side.strip() for side in answer.split("=")]
    if len(sides) < 2 or not all(side and _NUMERIC_SIDE.fullmatch(side) for side in sides):
        return None
    return sides


def restatement_features(latex: str) -> frozenset[str]:
    """What an expression is made of: its numbers, variables, functions (``\\cos^{-1}`` is ``\\arccos``,
    ``\\ln`` is ``\\log``, ``\\frac{d}{dx}`` is d/dx) and "factored" for a product or power of a
    parenthesised group."""
    found: set[str] = set()
    items = tokens(latex, keep_braces=True)
    for i, token in enumerate(items):
        token = _SYNONYMS.get(token, token)
        if token is None:
            continue
        following = items[i + 1 : i + 6]
        if token in _INVERSE_TRIG and following[:2] == ["^", "{"] and following[2:4] == ["-", "1"]:
            found.add(_INVERSE_TRIG[token])
            continue
        if token == "\\frac" and following[:4] == ["{", "d", "}", "{"]:
            found.add("d/dx")
        if token == ")" and i + 1 < len(items) and items[i + 1] in ("(", "^", "\\left"):
            found.add("factored")
        if token.isdigit() or re.fullmatch(r"\d+\.\d+", token) or token in FUNCTIONS:
            found.add(token)
        elif re.fullmatch(r"[A-Za-z]", token):
            found.add(token)
    # "-1" of an inverse function is notation, not a number of the expression
    return frozenset(found)


_FRACTION = re.compile(r"\\[dt]?frac\s*\{(?:[^{}]|\{[^{}]*\})*\}\s*(\{(?:[^{}]|\{[^{}]*\})*\})")


def root_below(latex: str) -> bool:
    """Whether a root stands in a denominator: ``\\frac{3}{\\sqrt6}``, ``1/\\sqrt{2}``."""
    if "\\sqrt" not in latex:
        return False
    return re.search(r"/\s*\\sqrt", latex) is not None or any("\\sqrt" in m.group(1) for m in _FRACTION.finditer(latex))


def keeps_operations(answer: str, expressions: tuple[str, ...] | list[str]) -> bool:
    """Whether the answer keeps an operation or a number of some expression, or has no operation of its
    own ("9801 + 100" of "$99^2+99+1$"): the expression partly worked out, not the solver's own step
    ("120 + 60" of "$12 \\times 15$")."""
    used = {token for token in tokens(answer) if token in OPERATORS or _NUMBER.fullmatch(token)}
    if not used & OPERATORS:
        return bool(expressions)
    return any(
        used & {token for token in tokens(expression) if token in OPERATORS or _NUMBER.fullmatch(token)}
        for expression in expressions
    )


def restates_by_form(answer: str, reference: str, problem_expressions: list[str]) -> bool:
    """Whether the answer, known to equal the reference, is one of `problem_expressions` (the
    problem's expressions that equal the reference) given back in another form (module docstring):
    made of that expression's parts, or keeping a structure of it that the question asked to
    remove (a factored product where it asks to expand, an integral, a fraction, a function)."""
    made_of = restatement_features(answer)
    if not made_of - NEUTRAL:
        return False
    wanted = restatement_features(reference)
    rationalised = "\\sqrt" in answer and not root_below(answer) and not root_below(reference)
    for expression in problem_expressions:
        if rationalised and root_below(expression):
            continue  # the root moved out of the denominator: the work asked, done
        own = restatement_features(expression)
        if (own - wanted) & made_of & STRUCTURE or (own - wanted) & made_of and not made_of - own - NEUTRAL:
            return True
    return False


def keeps_structure(answer: str, reference: str, expressions: tuple[str, ...]) -> bool:
    """Whether the answer keeps a structure (an integral, a function, a factored product ...) of one
    of the problem's `expressions` that the reference no longer has: "Evaluate $\\int_0^2 3x^2\\,dx$"
    answered ``3\\int_0^2 x^2\\,dx``."""
    kept = restatement_features(answer) & STRUCTURE
    if not kept:
        return False
    kept -= restatement_features(reference)
    return any(kept & restatement_features(expression) for expression in expressions)


def substituted(answer: str, expressions: tuple[str, ...]) -> bool:
    """Whether the answer is one of `expressions` (with a variable and an operator) with numbers put
    in for its variables and nothing worked out: "$3x^2 - x$" -> ``3(2)^2 - 2``, "$a + b$" -> ``-1 + 5``."""
    given = _lone_numbers_unwrapped(tokens(answer))
    for expression in expressions:
        pattern = tokens(expression)
        if any(_VARIABLE.fullmatch(token) for token in pattern) and any(token in OPERATORS for token in pattern):
            if _fits(pattern, given, {}):
                return True
    return False


def _lone_numbers_unwrapped(items: list[str]) -> list[str]:
    """ "( 2 )" -> "2", "( - 2 )" -> "- 2": a number put in for a variable is often parenthesised."""
    out, i = [], 0
    while i < len(items):
        if items[i] == "(" and i + 2 < len(items) and items[i + 2] == ")" and _NUMBER.fullmatch(items[i + 1]):
            out.append(items[i + 1])
            i += 3
        elif items[i : i + 2] == ["(", "-"] and items[i + 3 : i + 4] == [")"] and _NUMBER.fullmatch(items[i + 2]):
            out.extend(["-", items[i + 2]])
            i += 4
        else:
            out.append(items[i])
            i += 1
    return out


def _fits(pattern: list[str], given: list[str], bound: dict[str, tuple[str, ...]]) -> bool:
    """Whether `given` is `pattern` with each variable replaced by one number (signed or not), the
    same number for the same variable, and an optional "*" before a variable's number."""
    if not pattern:
        return not given
    head = pattern[0]
    if not _VARIABLE.fullmatch(head):
        return bool(given) and given[0] == head and _fits(pattern[1:], given[1:], bound)
    rest = given[1:] if given[:1] == ["*"] else given
    for size in (1, 2):
        value = tuple(rest[:size])
        if len(value) != size or not _NUMBER.fullmatch(value[-1]) or (size == 2 and value[0] != "-"):
            continue
        if bound.get(head, value) == value and _fits(pattern[1:], rest[size:], {**bound, head: value}):
            return True
    return False


NUMBER_LITERAL = re.compile(r"\s*-?\s*(?:\d+(?:\.\d+)?|\\[dt]?frac\s*\{\s*\d+\s*\}\s*\{\s*\d+\s*\}|\d+\s*/\s*\d+)\s*")


def contains_expression(answer: str, expressions: tuple[str, ...]) -> bool:
    """Whether the answer contains one of `expressions` (with an operator, three tokens or more)
    token for token: ``\\sqrt{10 \\times 15 \\times 24}`` contains ``10 \\times 15 \\times 24``."""
    joined = "\x1f" + "\x1f".join(tokens(answer)) + "\x1f"
    for expression in expressions:
        parts = tokens(expression)
        if len(parts) >= 3 and any(part in OPERATORS for part in parts):
            if "\x1f" + "\x1f".join(parts) + "\x1f" in joined:
                return True
    return False
