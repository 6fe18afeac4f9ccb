"""Characters and words that a reader reads as plain digits and numbers (grading round 5, issue 29).

    ascii_forms("Final answer: \uff15\uff11")          # "Final answer: 51": full-width digits
    ascii_forms("x\u00b2 + 9")                     # "x^{2} + 9": a superscript is an exponent
    ascii_forms("5.2 \u00d7 10\u207b\u2074")             # "5.2 \u00d7 10^{-4}"
    ascii_forms("reduces to \u00bd")                # "reduces to \\frac{1}{2}": a vulgar fraction
    number_word("twenty-one")                  # "21"
    spelled_numbers("So a cube has twelve edges.")   # [("12", 14, 20)]

`ascii_forms` rewrites, in text or in an answer:
- a decimal digit of any script (Unicode category Nd: full-width, Arabic-Indic, Devanagari,
  mathematical bold and double-struck digits, ...) as the ASCII digit of the same value;
- the full-width forms of ASCII (U+FF01 to U+FF5E: ``\uff0b``, ``\uff1d``, ``\uff08``, Latin letters) as
  ASCII, and the ideographic space as a space;
- a run of superscript digits and signs as an exponent (``10\u207b\u2074`` is ``10^{-4}``), of
  subscripts as a subscript (``x\u2081`` is ``x_{1}``);
- a vulgar fraction glyph (``\u00bd``, ``\u2154``, ``\u215e``) as ``\\frac{a}{b}``: after a digit it is a mixed
  number (``2\u00bd`` is ``2\\frac{1}{2}``, which `benchmarks.grading.math_normal` reads as 2 + 1/2);
- the characters a reader does not see (zero-width spaces and joiners, the word joiner, the byte-order
  mark, the soft hyphen) dropped: ``1\u200b2`` is 12;
- the fraction slash ``\u2044`` and the division slash ``\u2215`` as ``/``; the ordinal sign ``\u00ba`` and the
  ring ``\u02da`` after a digit as the degree sign;
- the minus sign ``\u2212`` as ``-`` (round 7: "7 \u2212 12 = \u22125." concludes on -5, as the
  readings of an unboxed ending, which look for ASCII signs, now see).
Everything else (the times and root signs, which `math_normal.typographic` reads in an answer) is
left as it is. ASCII text is returned at once (one C-level check).

`number_word` reads a number written in English words, zero to 999 ("twelve", "forty-two", "one
hundred and five"); `spelled_numbers` finds each such number in a sentence (the longest reading
at each place: "twenty-one" is 21, not 20 and 1).
"""

import re
import unicodedata


def _digit_table() -> dict[int, str]:
    """Every decimal digit (category Nd) of the Basic Multilingual Plane and of the mathematical
    alphanumeric block as its ASCII digit; full-width ASCII as ASCII; the slashes; the characters a
    reader does not see dropped."""
    table = {}
    for code in [*range(0x80, 0x10000), *range(0x1D7CE, 0x1D800)]:
        char = chr(code)
        if unicodedata.category(char) == "Nd":
            table[code] = str(unicodedata.digit(char))
    for code in range(0xFF01, 0xFF5F):  # full-width "!" to "~"
        table[code] = chr(code - 0xFEE0)
    table[0x3000] = " "  # the ideographic space
    table[0x2044] = table[0x2215] = "/"  # fraction and division slashes
    table[0x2212] = "-"  # the minus sign
    for code in (0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD):  # zero-width and soft hyphen: not seen
        table[code] = None
    return table


_TABLE = _digit_table()
_SUPERSCRIPTS = dict(zip("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207a\u207b", "0123456789+-"))
_SUBSCRIPTS = dict(zip("\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089\u208a\u208b", "0123456789+-"))
_SUPERSCRIPT_RUN = re.compile("[" + "".join(_SUPERSCRIPTS) + "]+")
_SUBSCRIPT_RUN = re.compile("[" + "".join(_SUBSCRIPTS) + "]+")
# Vulgar fractions: the glyph's numerator and denominator (U+2189 is 0/3, not a reader's form).
_VULGAR = {"\u00bc": (1, 4), "\u00bd": (1, 2), "\u00be": (3, 4), "\u2150": (1, 7), "\u2151": (1, 9), "\u2152": (1, 10)}
_VULGAR |= {"\u2153": (1, 3), "\u2154": (2, 3), "\u2155": (1, 5), "\u2156": (2, 5), "\u2157": (3, 5), "\u2158": (4, 5)}
_VULGAR |= {"\u2159": (1, 6), "\u215a": (5, 6), "\u215b": (1, 8), "\u215c": (3, 8), "\u215d": (5, 8), "\u215e": (7, 8)}
_VULGAR_GLYPH = re.compile("[" + "".join(_VULGAR) + "]")


_ORDINAL_DEGREE = re.compile("(?<=\\d)[\u00ba\u02da]")  # "45\u00ba", "45\u02da": a degree sign mistyped


def ascii_forms(text: str) -> str:
    """`text` with the characters of the module docstring in their ASCII (or LaTeX) forms."""
    if text.isascii():
        return text
    text = _ORDINAL_DEGREE.sub("\u00b0", text.translate(_TABLE))
    if _SUPERSCRIPT_RUN.search(text):
        text = _SUPERSCRIPT_RUN.sub(lambda m: "^{" + "".join(_SUPERSCRIPTS[c] for c in m.group()) + "}", text)
    if _SUBSCRIPT_RUN.search(text):
        text = _SUBSCRIPT_RUN.sub(lambda m: "_{" + "".join(_SUBSCRIPTS[c] for c in m.group()) + "}", text)
    if _VULGAR_GLYPH.search(text):
        text = _VULGAR_GLYPH.sub(lambda m: "\\frac{{{}}}{{{}}}".format(*_VULGAR[m.group()]), text)
    return text


_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven")
_UNITS += ("twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_VALUES = {word: value for value, word in enumerate(_UNITS)} | {word: 20 + 10 * k for k, word in enumerate(_TENS)}
_BELOW_100 = (
    r"(?:(?:"
    + "|".join(_TENS)
    + r")(?:[- ](?:one|two|three|four|five|six|seven|eight|nine)\b)?|"
    + "|".join(sorted(_UNITS, key=len, reverse=True))
    + ")"
)
# A number in words: "<a | one..nine> hundred [and] <below 100>", or below 100 alone.
_SPELLED = re.compile(
    r"\b(?:(?:a|one|two|three|four|five|six|seven|eight|nine)\s+hundred(?:\s+(?:and\s+)?" + _BELOW_100 + r")?"
    r"|" + _BELOW_100 + r")\b",
    re.IGNORECASE,
)


_DENOMINATORS = {"half": 2, "halves": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6}
_DENOMINATORS |= {"seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}
# A fraction in words: "one half", "a third", "two thirds", "three quarters" (the numerator below 100).
_FRACTION_WORDS = re.compile(
    r"\b(a|an|"
    + _BELOW_100
    + r")[\s-]+(halves|half|(?:third|quarter|fourth|fifth|sixth|seventh|eighth|ninth|tenth)s?)\b",
    re.IGNORECASE,
)


def fraction_word(text: str) -> str | None:
    """``\\frac{a}{b}`` for a fraction written in words ("two thirds"), else None."""
    found = _FRACTION_WORDS.fullmatch(text.strip())
    if found is None:
        return None
    numerator = "1" if found.group(1).lower() in ("a", "an") else number_word(found.group(1))
    word = found.group(2).lower()
    denominator = _DENOMINATORS[word if word in _DENOMINATORS else word.removesuffix("s")]
    return None if numerator is None else f"\\frac{{{numerator}}}{{{denominator}}}"


def number_word(text: str) -> str | None:
    """The digits of a number written in words (module docstring), else None."""
    text = text.strip()
    if not _SPELLED.fullmatch(text):
        return None
    total = 0
    words = re.split(r"[\s-]+", text.lower())
    if "hundred" in words:
        at = words.index("hundred")
        total = 100 * (1 if words[0] == "a" else _VALUES[words[0]])
        words = [word for word in words[at + 1 :] if word != "and"]
    return str(total + sum(_VALUES[word] for word in words))


def spelled_numbers(sentence: str) -> list[tuple[str, int, int]]:
    """(value, start, end) of each number written in words in `sentence`, in order: a fraction in words
    as ``\\frac{a}{b}`` ("two thirds"), any other number as digits."""
    fractions = [(fraction_word(m.group()), m.start(), m.end()) for m in _FRACTION_WORDS.finditer(sentence)]
    covered = [(start, end) for _, start, end in fractions]
    found = [(number_word(match.group()), match.start(), match.end()) for match in _SPELLED.finditer(sentence)]
    found = [item for item in found if not any(start <= item[1] < end for start, end in covered)]
    return sorted((item for item in fractions + found if item[0] is not None), key=lambda item: item[1])
