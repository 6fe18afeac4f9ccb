"""A last line that concludes on one value without a box: a sign of conclusion or a short label and a colon.

    concluding_line("...\n\u2234 $f(5) = 6$")                 # "f(5) = 6"
    concluding_line("...\nIn interval notation: (-3, 3]")   # "(-3, 3]"
    concluding_line("...\nCheck: 7")                        # None: a check is a step of the work

Read by `benchmarks.grading.math_unboxed` (rule 6) after the final statements of
`benchmarks.grading.math_final`; the value must be nothing but an answer (`math_final.answer_text`).
"""

import re

from benchmarks.grading.math_final import ANSWER_TEXT_CHARS, NOT_A_CONCLUSION, answer_text

# A sign of conclusion before the last line's value: therefore, an arrow or an implication.
_CONCLUDES = re.compile(
    r"\u2234|\u21d2|\u2192|\u27f9|\u27f6|\u21a6|=>|->|\\(?:therefore|Rightarrow|implies|Longrightarrow|longrightarrow"
    r"|rightarrow|to)(?![A-Za-z])"
)
# A short label and a colon before it ("In interval notation:", "Result:"), not a step of the work.
_LABEL = re.compile(r"[A-Za-z][A-Za-z ]{0,40}:(?!\S)")
_MARKUP = re.compile(r"^[#>*\s]+|[*\s]+$")
_LATEX_SPACE = re.compile(r"^\s*(?:\\[,;:! ]|\\quad|\\qquad|~|\s)*")


def concluding_line(seen: str) -> str | None:
    """A last line that concludes on one value: a sign of conclusion ("\u2234 $f(5) = 6$", "Answer
    $\\Rightarrow 24$") or a short label with a colon ("In interval notation: (-\u221e, 3]") before a
    value that is nothing but an answer (`answer_text`)."""
    line = _MARKUP.sub("", seen.rstrip()[-ANSWER_TEXT_CHARS:].rsplit("\n", 1)[-1])
    if not line:
        return None
    signs = list(_CONCLUDES.finditer(line))
    if signs:
        value = _LATEX_SPACE.sub("", line[signs[-1].end() :])
        if "$" in line[: signs[-1].start()] and value.count("$") % 2:  # the sign inside a math span
            value = "$" + value
    else:
        label = _LABEL.match(line)
        if label is None or NOT_A_CONCLUSION.search(label.group()):
            return None
        value = line[label.end() :]
    return answer_text(value)
