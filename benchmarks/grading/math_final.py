"""Answers without a box: a text that is nothing but an answer, and the final statement a completion ends on.

    answer_text("$x = 5$.")                                  # "x = 5": nothing but an answer
    answer_text("5 cm")                                      # "5"
    answer_text("not 42 but")                                # None: words in it
    final_statement("... So it has 12 edges in total.")      # "12"
    final_answer("... Each gets **24/2** stickers.")         # ("24/2", ()): the one bold value of the last line
    final_answer("...\n\nThe ribbon is 250 mm long.")        # ("250", ("unit:mm",)): the unit travels with it
    final_answer("... leaves\n\nx\u00b2 + 9")                      # ("x^{2} + 9", ()): a last line of its own

`answer_text` says whether a short text is an answer and nothing else: a closed math span
(``$...$``, ``\\(...\\)``, ``\\[...\\]``, with no other span inside) or plain text: a formula without
words (``\\text{}`` aside), optionally followed by up to three unit words ("5 cm", "80 km/h"), one
single word ("Evelyn", "B"), or an amount of money after a bare dollar sign ("$2.50"). An unclosed
``$`` or brace, words before the answer or a second line mean there is none; so do words after the
value that make a sentence or a doubt of it ("13 is wrong", "12 or more"). `unit_words` gives the
unit words it dropped, `unit_qualifier` the unit they name.

`final_answer` reads the end of a completion without a box, as a careful reader does (`final_statement`
alone for a text after a withdrawn box). In order, the first that applies:
1. a last line whose one bold span is a value ("20 is **25%** of 80.", "Therefore there are **8**
   such integers.", "**5.2 \u00d7 10\u207b\u2074**"), with no doubt in the rest of the line (an "or" between two
   other values, "divisible by 3 or 5", is the question's wording, not a doubt);
2. a last line of its own paragraph that is nothing but an answer ("35", "d = 5\u221a2", "$(x, y) = (3, 2)$"),
   or a last line of one plain value right under the working ("2^6 = 64.\n6");
3. a last sentence, closed by its full stop, that concludes ("so", "therefore", "in total", a verb of
   result: "is", "measures", "has", "reduces to"; a short label and a colon before the value: "Counting
   them: seven."; or a paragraph of its own) and names exactly one
   value without a doubt ("not", "if", "or", "about"): one number, one math span, or else one number
   in words ("So a cube has twelve edges."); a currency ``\\$`` is no math delimiter. With a relative
   clause ("..., which reduces to \u00bd.") the last clause is read. Numbers that only arithmetic joins are
   one value: the last side of a chain ("72.5\u00b0 + 35\u00b0 = 107.5\u00b0"), else the expression left undone
   ("72 \u00f7 8", which strict grading refuses); a number in words right after the last result verb is
   the value, the subject's numbers the question's data ("two thirds of 27 is eighteen",
   `benchmarks.grading.math_result`); an ordered tuple in prose ("(3, 1)", Unicode minus signs
   too) is one value; a math span opening with "=" after a name ("Total $= 2 \\times 12$") is its value; a value
   denied as the alternative ("7 sides, not 6") is set aside.
A name of the value in words before "=" is not part of it ("**LCM = 56**", "Probability = 0.375", "Area $= 36$").
Characters a reader reads as digits are read so first (`benchmarks.grading.math_glyphs.ascii_forms`).
The unit word right after the value travels with it ("unit:mm"), as do a bound or an estimate in its
clause ("bound", "estimate"), for the grader to check against the question; a value its clause denies
("13 is wrong.") is no answer. Everything reads the last TAIL_CHARS characters, with regexes without
nested quantifiers.
"""

import re

from benchmarks.grading.math_asked import unit_after
from benchmarks.grading.math_glyphs import ascii_forms, spelled_numbers
from benchmarks.grading.math_result import OTHER_ALTERNATIVE, spelled_result
from benchmarks.grading.math_scope import denied_after, denied_before, hinted, qualifier_after, qualifier_before

ANSWER_TEXT_CHARS = 300  # the longest plain-text or math-span answer
TAIL_CHARS = 300  # the end of a completion read for a final statement

_MATH_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_UNITS = re.compile(r"(?:\s+[A-Za-z]+(?:\^\{?[23]\}?)?(?:/[A-Za-z]+)?\.?){1,3}\Z")  # "5 cm", "80 km/h", "120 cm^{2}"
_WORD = re.compile(r"(?<!\\)(?<![A-Za-z])[A-Za-z]{2,}")  # a word, not a LaTeX command's name
_TEXT_COMMAND = re.compile(r"\\(?:text|mbox|mathrm)\s*\{[^{}]*\}")
_SINGLE_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_DOLLAR = re.compile(r"(?<!\\)\$")
# Words after a number that make a sentence or a doubt of it, not a unit ("13 is wrong", "12 or more").
_NOT_UNITS = re.compile(
    r"\b(?:is|are|was|were|be|been|isn't|not|no|never|wrong|incorrect|false|invalid|or|if|maybe|perhaps|probably"
    r"|about|approximately|roughly|nearly|around|almost|at|than|more|less|fewer|least|most)\b",
    re.IGNORECASE,
)
# A name of the value in words before "=" ("LCM = 56", "Total cost = 12", "P(red) = 3/4"), not a variable of one
# letter; the "=" may open a math span ("Area $= 9 \times 4 = 36$": group 2 is then "$").
_LABEL_EQUALS = re.compile(r"([A-Za-z]{2,}(?: [A-Za-z]+){0,3}|[A-Za-z]{1,3}\([^()=$\\]{1,20}\))\s*(\$?)\s*=\s*(?=\S)")
_SPAN_UNITS = re.compile(r"\$((?:\s+[A-Za-z]+(?:/[A-Za-z]+)?\.?){1,3})\Z")  # "$60$ km/h": a span, then unit words
_MONEY = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s+[A-Za-z]+){0,2}")


def _balanced(text: str) -> bool:
    """Closed braces and math delimiters: what a cut-off answer usually lacks."""
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0 and len(_DOLLAR.findall(text)) % 2 == 0 and text.count("\\(") == text.count("\\)")


def answer_text(text: str) -> str | None:
    """The answer in `text` when `text` is nothing but an answer (module docstring), else None."""
    text = text.strip().strip("*").strip().strip("\"'").strip()
    if not text or len(text) > ANSWER_TEXT_CHARS:
        return None
    text = text.rstrip(".!").strip()
    money = _MONEY.fullmatch(text)
    if money is not None:  # "$2.50": a dollar sign before a number and nothing else is currency, not maths
        return money.group(1).replace(",", "")
    if not _balanced(text):
        return None
    label = _LABEL_EQUALS.match(text)
    if label is not None and label.group(2) and not _NOT_UNITS.search(label.group(1)):  # "Area $= 36$": the span
        return answer_text("$" + text[label.end() :])
    span = _MATH_SPAN.fullmatch(text)
    if span:  # "$x = 5$": the span is the answer, unless it holds another span's delimiters
        inner = next(group for group in span.groups() if group is not None).strip()
        if _DOLLAR.search(inner) or "\\(" in inner or "\\[" in inner:
            return None  # "$2x \\ge 6$, so $x \\ge 3$": two spans and words between them
        return inner.rstrip(".").strip() or None
    units = _SPAN_UNITS.search(text) if text.startswith("$") else None
    if units is not None and not _NOT_UNITS.search(units.group(1)):  # "$120 / 2 = 60$ km/h": the span
        return answer_text(text[: units.start(1)])
    if "$" in text.replace("\\$", "") or "\n" in text:  # maths and prose mixed, or two lines
        return None
    if _SINGLE_WORD.fullmatch(text):  # "Evelyn", "B", "yes"
        return text
    if label is not None and not _NOT_UNITS.search(label.group(1)):  # "LCM = 56": a name of the value, then it
        return answer_text(text[label.end() :])
    units = _UNITS.search(text) if re.search(r"\d", text) else None  # "5 cm" -> "5"
    if units is not None and _NOT_UNITS.search(units.group()):
        return None  # "13 is wrong", "12 or more": a sentence or a doubt, not a unit
    formula = text if units is None else text[: units.start()]
    words = _WORD.search(_TEXT_COMMAND.sub("", formula))  # "5 \text{ cm}" has no words of its own
    if not formula or words or not re.search(r"[\dA-Za-z]", formula):
        return None  # words in it ("not 42 but"), or nothing to grade
    return formula.strip()


def unit_words(text: str) -> str:
    """The unit words at the end of an answer text that `answer_text` drops ("" when none)."""
    text = text.strip().strip("*").strip().rstrip(".!").strip()
    found = _UNITS.search(text) if re.search(r"\d", text) and "$" not in text else _SPAN_UNITS.search(text)
    return "" if found is None else found.group(found.lastindex or 0)


def unit_qualifier(text: str) -> tuple[str, ...]:
    """("unit:<word>",) when the answer text ends with a unit word of `math_asked`'s table, else ()."""
    unit = unit_after(unit_words(text))
    return () if unit is None else ("unit:" + unit,)


def _with_unit(answer: str, after: str, before: str = "") -> tuple[str, tuple[str, ...]] | None:
    """The answer with what the words around it make of it (as `benchmarks.grading.math_commit` reads
    them around a box): a bound or an estimate in its clause, the unit word right after it; None when
    its clause denies it ("13 is wrong.", `benchmarks.grading.math_scope`)."""
    if (before and hinted(before) and denied_before(before)) or (hinted(after) and denied_after(after)):
        return None
    found = [kind for kind in (qualifier_before(before), qualifier_after(after)) if kind is not None]
    unit = unit_after(after)
    if unit is not None:
        found.append("unit:" + unit)
    return answer, tuple(dict.fromkeys(found))


def name_qualifier(text: str) -> tuple[str, ...]:
    """("named:<words>",) when `text` names its value in words before "=" ("Area = 24", "Area $= 24$"), else
    (): the grader checks that name against the question (`benchmarks.grading.math_asked.other_quantity`)."""
    label = _LABEL_EQUALS.match(text.strip().strip("*").strip())
    return () if label is None else ("named:" + label.group(1),)


def _named(found: tuple[str, tuple[str, ...]] | None, text: str) -> tuple[str, tuple[str, ...]] | None:
    """`found` with the name `text` gives its value (`name_qualifier`) added."""
    return found if found is None else (found[0], (*found[1], *name_qualifier(text)))


_BOLD = re.compile(r"\*\*([^*\n]{1,120})\*\*")
_LINE_MARKUP = re.compile(r"^[#>\s]+")
_BARE_VALUE = re.compile(r"\s*\$?\s*-?\d+(?:\.\d+)?(?:/\d+)?\s*\$?\s*\.?\s*")
NOT_A_CONCLUSION = re.compile(r"\b(?:check|verif|note|hint|step|case|if|suppose|assume|let|try|test|guess)", re.I)
_DOUBTFUL = re.compile(
    r"\b(?:not|never|no|if|maybe|probably|perhaps|or|either|about|approximately|could|might)\b|n't\b|\?", re.I
)
# A sentence that opens with a short label and a colon ("Counting them: seven", "Total: four") gives its value.
_COLON_LABEL = re.compile(r"\s*[A-Za-z][A-Za-z ]{0,40}:\s+(?=\S)")
_SENTENCE_START = re.compile(r"(?:[.!?](?=\s)|\n)\s*")
# The clause a sentence concludes in: after ", so" / ", therefore", or a relative clause of result.
_CONCLUDING_CLAUSE = re.compile(
    r",\s*(?:so|therefore|thus|hence|which (?:reduces|simplifies|comes|works out|equals|gives|is)|giving)\b"
    r"(?!.*,\s*(?:so|therefore|thus|hence|which|giving)\b)",
    re.I,
)
_CONCLUDING = re.compile(r"\b(?:so|therefore|thus|hence|in total|altogether|in all)\b", re.IGNORECASE)
_CONCLUDING_VERB = re.compile(  # a verb of result: being, having, measuring, costing, getting, a change by an amount
    r"\b(?:is|are|was|were|measures?|has|have|equals?|totals?|comes to|adds? up to|sums? to|makes|gives|costs?|weighs?"
    r"|takes?|took|needs?"
    r"|contains?|holds?|remains?|yields?|reaches|reached|becomes|became|rose|fell|grew|[a-z]+ed by|will (?:be|take|cost"
    r"|need|have|get|receive|earn|pay|spend|save)|gets|got|receives?|received|earns?|earned|pays|paid|spends|spent"
    r"|saves|saved|(?:reduces|simplifies|works out|comes out) to)\b",
    re.I,
)
_NUMBER = re.compile(r"(?<![\w.^_{\\])[-\u2212]?\d+(?:\.\d+)?(?:/\d+)?(?![\w.^_}])")
_GROUPED = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w.])")  # "16,384": one number
_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$")
_FRACTION = re.compile(r"(?<![\w.^_{\\])(?:\d+\s*)?\\frac\{\d+\}\{\d+\}")  # a vulgar fraction read (`math_glyphs`)


def doubtful(sentence: str) -> bool:
    """Whether a final sentence doubts its value ("not", "if", "or", "about", outside math spans) or
    leaves a math span open."""
    return _DOUBTFUL.search(_SPAN.sub(" ", sentence)) is not None or sentence.count("$") % 2 == 1


def _values(sentence: str) -> list[tuple[str, int, int]]:
    """(value, start, end) of each number, fraction, ordered tuple and math span of a sentence, in order."""
    sentence = sentence.replace("\u2212", "-")  # "(\u22122, \u22123)": a Unicode minus is a minus sign
    # A span that opens with "=" ("Total $= 2 \times 12$ seats") gives the value the words before it name.
    spans = [((m.group(1) or m.group(2)).strip(" =\n"), m.start(), m.end()) for m in _SPAN.finditer(sentence)]
    prose = _SPAN.sub(lambda m: " " * len(m.group()), sentence)
    tuples = [(m.group(), m.start(), m.end()) for m in _TUPLE.finditer(prose) if not _GROUPED.fullmatch(m.group(1))]
    for _, start, end in tuples:
        prose = prose[:start] + " " * (end - start) + prose[end:]
    grouped = [(m.group().replace(",", ""), m.start(), m.end()) for m in _GROUPED.finditer(prose)]
    prose = _GROUPED.sub(lambda m: " " * len(m.group()), prose)
    fractions = [(m.group(), m.start(), m.end()) for m in _FRACTION.finditer(prose)]
    prose = _FRACTION.sub(lambda m: " " * len(m.group()), prose)
    numbers = [(m.group(), m.start(), m.end()) for m in _NUMBER.finditer(prose)]
    return sorted(spans + tuples + grouped + fractions + numbers, key=lambda found: found[1])


def _one_expression(sentence: str, values: list[tuple[str, int, int]]) -> tuple[str, int, int] | None:
    """The values of a sentence read as one, when nothing but arithmetic joins them: the last side of
    a chain ("72.5\u00b0 + 35\u00b0 = 107.5\u00b0" is 107.5), or the expression left undone ("72 \u00f7 8"), which
    strict grading refuses as arithmetic left undone."""
    start, end = values[0][1], values[-1][2]
    between = [sentence[a[2] : b[1]] for a, b in zip(values, values[1:])]
    if not all(_JOINS.fullmatch(gap) for gap in between):
        return None
    if "=" in between[-1]:
        return values[-1]
    expression = (
        sentence[start:end].replace("\u00f7", "\\div ").replace("\u00d7", "\\times ").replace("\u00b7", "\\cdot ")
    )
    return expression.replace("\u00b0", "").replace("\u2212", "-"), start, end


# What joins the numbers of one expression in prose: an operator or "=", a degree sign, spaces.
_JOINS = re.compile(r"\u00b0?\s*[-+*/=\u00d7\u00f7\u00b7\u2212]\s*(?:=\s*)?")
_TUPLE = re.compile(r"\((\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?)+\s*)\)")  # "(3, 1)": one ordered pair
# A value denied as the alternative to the answer ("7 sides, not 6"): set aside, it is not a second answer.
_DENIED_ALTERNATIVE = re.compile(
    r",?\s*(?:and |but )?(?:not|rather than|instead of)\s+(?:\$[^$]{1,40}\$|-?\d+(?:\.\d+)?)(?=[\s,;.]|\Z)"
)


def final_statement(seen: str) -> str | None:
    """The answer of an unboxed final statement (module docstring, rules 1 and 3), without its unit."""
    found = _final(ascii_forms(seen[-TAIL_CHARS:].rstrip()), own_paragraph=False)
    return None if found is None else found[0]


def final_answer(seen: str) -> tuple[str, tuple[str, ...]] | None:
    """(answer, qualifiers) of the completion's unboxed ending (module docstring), or None."""
    return _final(ascii_forms(seen[-TAIL_CHARS:].rstrip()), own_paragraph=True)


def _final(tail: str, own_paragraph: bool) -> tuple[str, tuple[str, ...]] | None:
    line_start = tail.rfind("\n") + 1
    line = _LINE_MARKUP.sub("", tail[line_start:])
    alone = own_paragraph and tail[:line_start].rstrip(" \t").endswith("\n\n")
    # A last line of one plain value ("...\n2^6 = 64.\n6") stands apart even without a blank line.
    alone = alone or (own_paragraph and line_start > 0 and _BARE_VALUE.fullmatch(line) is not None)
    if "**" in line and not NOT_A_CONCLUSION.match(line):  # 1: the bold value of the last line
        bold = _BOLD.findall(line)
        if len(bold) == 1:
            answer = answer_text(bold[0])
            rest = OTHER_ALTERNATIVE.sub(" ", _BOLD.sub(" ", line))  # "divisible by 3 or 5": the question's "or"
            if answer is not None and re.search(r"\d", answer) and not _DOUBTFUL.search(rest):
                at = line.index("**" + bold[0])
                found = _with_unit(answer, unit_words(bold[0]) or line[at + len(bold[0]) + 4 :], line[:at])
                return _named(found, bold[0])
    if alone and not line.rstrip().endswith(":"):  # 2: a last line of its own paragraph
        answer = answer_text(line.strip().strip("*"))
        if answer is not None and re.search(r"[\d\\]", answer) and not NOT_A_CONCLUSION.match(line):
            return _named(_with_unit(answer, unit_words(line)), line)
    if not tail.endswith(".") or tail.endswith(".."):
        return None
    sentence = _SENTENCE_START.split(tail[:-1])[-1].replace("\\$", "")
    conclusion = _CONCLUDING_CLAUSE.search(sentence)
    if conclusion is not None:  # "In fact $180 - 60 - 75 = 45$, so the angle is 45 degrees": its last clause
        sentence = sentence[conclusion.start() :]
    alone = alone and "\n" not in tail[line_start:] and sentence == line.rstrip(".").replace("\\$", "")
    labelled = _COLON_LABEL.match(sentence) is not None and not NOT_A_CONCLUSION.match(sentence.lstrip())
    if not (alone or labelled or _CONCLUDING.search(sentence) or _CONCLUDING_VERB.search(sentence)):
        return None
    if _DENIED_ALTERNATIVE.search(sentence) and _values(_DENIED_ALTERNATIVE.sub(" ", sentence)):
        sentence = _DENIED_ALTERNATIVE.sub(" ", sentence)  # "has 7 sides, not 6": 7, the value that stays
    if doubtful(sentence):
        return None
    values = _values(sentence)
    spelled = spelled_result(sentence, values)  # "two thirds of 27 is eighteen": the value its verb gives
    if spelled is not None:
        return _with_unit(spelled[0], sentence[spelled[2] :], sentence[: spelled[1]])
    if len(values) > 1:  # "72.5\u00b0 + 35\u00b0 = 107.5\u00b0": one expression, or more than one answer
        one = _one_expression(sentence, values)
        if one is None:
            return None
        values = [one]
    if len(values) == 1:
        value, start, end = values[0]
        return _with_unit(value, sentence[end:], sentence[:start])
    words = spelled_numbers(sentence)
    return _with_unit(words[0][0], sentence[words[0][2] :], sentence[: words[0][1]]) if len(words) == 1 else None
