"""The end of an unboxed completion as a reader reads it: marks, stray spans and side remarks that are no answer.

    reader_ending("... the only solution is $x = -2$. \u220e")            # "... the only solution is $x = -2$."
    reader_ending("... Hence $x = 5$. q.e.d.")                          # "... Hence $x = 5$."
    reader_ending("... equals\\n$$c = \\sqrt{48}.$$")                     # "... equals\\n$$c = \\sqrt{48}$$."
    reader_ending("**Answer: 30** $      $")                            # "**Answer: 30**": an empty span shows nothing
    reader_ending("Answer: $45^\\circ$. (Not $135^\\circ$: obtuse.)")     # "Answer: $45^\\circ$.": a side remark
    without_check("... x = 5.\\n\\nCheck: $5^2 = 25$ \u2713")                 # "... x = 5.": the check after the answer

A reader takes the last statement of a completion for its answer whatever closes it, so the readings
of `benchmarks.grading.math_unboxed` see the ending without:
- an end-of-proof mark: "q.e.d.", "QED", "\u220e", "\u25a1", "\u25a0", ``\\blacksquare``, ``\\square``, ``\\qed``,
  ``\\Box``, a check mark "\u2713" / "\u2714" (with ``\\hfill`` and math delimiters around them);
- an empty math span (what is left of text a reader does not see, `benchmarks.grading.math_hidden`);
- the line break before a closing display that the line before it introduces ("equals\\n$$c = 5$$."):
  a display is part of its sentence;
- the sentence's full stop inside the closing display (``$$x = 5.$$``, ``\\[x = 5.\\]``): it is the
  sentence's, so it is read after the display;
- a side remark in parentheses after the last statement that offers no other answer: no alternative,
  doubt, condition or retraction in it ("(out of the 120 arrangements in all)", "(Not $135^\\circ$: that is
  the obtuse angle.)": a value denied there is another value than the answer). "(or 9)", "(possibly 12)",
  "(if order matters, 24)", "(not sure)" stay, and are read as the doubt or second answer they are.
`without_check` gives the text before a last paragraph that only checks the answer ("Check: ...",
"Verification: ...", "Substituting back, ..."), which then is no answer of its own: the grader reads
the statement before it. A check that retracts, corrects or states an answer is kept.
All of it reads the last TAIL_CHARS characters with linear regexes.
"""

import re

from benchmarks.grading.math_retraction import retracted

TAIL_CHARS = 400  # the end of a completion read here

_END_MARK = re.compile(
    r"(?:\s|\\hfill\b|\\qquad\b|\\quad\b|\$|\\\(|\\\)|\\\[|\\\]|\(|\))*(?:(?<![A-Za-z])q\.?\s?e\.?\s?d\.?|\u220e|\u25a1|\u25a0|\u2713|\u2714"
    r"|\\(?:blacksquare|square|qed|Box|checkmark)(?![A-Za-z]))(?:\s|\$|\\\)|\\\]|\))*\Z",
    re.IGNORECASE,
)
_EMPTY_SPAN = re.compile(r"\s*(?:(?<!\$)\$\$\s*\$\$|(?<!\$)\$\s+\$|\\\(\s*\\\)|\\\[\s*\\\])\s*\Z")
_STOP_INSIDE = re.compile(r"\s*([.!])\s*(\$\$|\\\])\s*\Z")  # a display's ("$2.$" inline is read as it is)
# A line break before a closing display that continues the sentence of the line before it (no full stop there).
_DISPLAY_LINE = re.compile(r"(?<=[A-Za-z,:])[ \t]*\n[ \t]*(?=(?:\$\$|\\\[)[^\n]{1,300}\Z)")
# A side remark in parentheses at the very end, after a statement that ends with its full stop or span.
_REMARK = re.compile(r"(?<=[.$*)\]])(\s*)\(([^()]{1,300})\)\.?\s*\Z")
_OFFERS = re.compile(  # words by which a remark offers another answer, doubts the answer or sets a condition
    r"\b(?:or|also|possibly|perhaps|maybe|might|could|may|either|alternatively|if|unless|otherwise|depending"
    r"|probably|likely|about|approximately|roughly|sure|certain|confident|though|although|plausible|guess|actually"
    r"|answer|instead|rather|correct(?:ion|ed)?|wrong|incorrect|mistake|error|should)\b|\?|\\approx|\u2248",
    re.IGNORECASE,
)
_CHECK_PARAGRAPH = re.compile(
    r"\s*(?:\*\*)?(?:check(?:ing)?|verif(?:y|ication|ying)|sanity check|double[- ]check|test|proof"
    r"|let(?:'s| me| us) (?:check|verify)|substituting back|plugging (?:back|in))\b",
    re.IGNORECASE,
)
_NEW_ANSWER = re.compile(r"\banswer\b|\bactually\b|\binstead\b|\bcorrect(?:ion|ed)\b|\\boxed|\\fbox", re.IGNORECASE)


def reader_ending(seen: str) -> str:
    """`seen` with its ending read as the module docstring says (unchanged when nothing applies)."""
    head, tail = seen[:-TAIL_CHARS], seen[-TAIL_CHARS:]
    previous = None
    while previous != tail:
        previous = tail
        tail = _END_MARK.sub("", tail.rstrip()).rstrip()
        empty = _EMPTY_SPAN.search(tail)
        if empty is not None and tail.count("$", 0, empty.start()) % 2 == 0:  # not the close of a span
            tail = tail[: empty.start()]
        display = _DISPLAY_LINE.search(tail)
        if display is not None:  # "... equals\n$$c = \sqrt{48}$$.": a display is part of its sentence
            tail = tail[: display.start()] + " " + tail[display.end() :]
        stop = _STOP_INSIDE.search(tail)
        if stop is not None:  # "$$c = \sqrt{48}.$$": the full stop is the sentence's
            tail = tail[: stop.start()] + stop.group(2) + stop.group(1)
        remark = _REMARK.search(tail)
        if remark is not None and not _OFFERS.search(remark.group(2)) and not retracted(remark.group(2)):
            tail = tail[: remark.start()].rstrip()
            tail = tail if tail.endswith((".", "$", "*", ")", "]")) else tail + "."
    return head + tail


def without_check(seen: str) -> str | None:
    """The text before a last paragraph that only checks the answer (module docstring), else None."""
    cut = seen.rstrip().rfind("\n\n", max(0, len(seen) - TAIL_CHARS))
    if cut < 0:
        return None
    check = seen[cut:]
    if not _CHECK_PARAGRAPH.match(check) or _NEW_ANSWER.search(check) or retracted(check):
        return None
    return seen[:cut].rstrip()
