"""The form of an equation a question asks for: an equation in another form is not the answer asked.

    equation_form_refusal("2x - y + 3 = 0", "y=2x+3", "... Write it in slope-intercept form.")  # refused
    equation_form_refusal("y = 2x + 3", "y=2x+3", "... in slope-intercept form.")              # None
    equation_form_refusal("x^2+y^2-2x+4y-4=0", "(x-1)^2+(y+2)^2=9",
                          "... Write it in the form $(x-h)^2 + (y-k)^2 = r^2$.")             # refused

A question that names the form of its equation ("slope-intercept form", "point-slope form",
"vertex form", "general form", "standard form" of a line or a circle, or "in the form $T$" with a
template T) asks for that form in both modes: the same curve written another way is an answer to
another question. A form is read as a few features of the equation's shape, not as a pattern of
symbols, so that any template is read alike:
- the left side is one variable alone (``y = ...``), and which one;
- the right side holds neither x nor y (a constant, ``r^2``, ``C``), or is 0;
- a square of a bracket that holds x or y (``(x-h)^2``: centre or vertex form);
- a bracket that holds x or y at all (``m(x - x_1)``: point-slope form).
The answer must have every feature the asked form has. Only features the reference itself shows
count (a template misread here never refuses the reference's own form), and only an answer that is
one equation (one ``=``) is judged.
"""

import re

_TEMPLATE = re.compile(r"\b(?:in|of|into|to) (?:the )?form\s*(?:\$\$?|\\\(|\\\[)([^$]{1,160}?)(?:\$\$?|\\\)|\\\])")
_NAMED = (  # a named form -> the template that stands for it
    (re.compile(r"slope[- ]intercept", re.I), "y = mx + b"),
    (re.compile(r"point[- ]slope", re.I), "y - k = m(x - h)"),
    (re.compile(r"vertex form", re.I), "y = a(x - h)^2 + k"),
    (re.compile(r"general form", re.I), "Ax + By + C = 0"),
    (re.compile(r"(?:standard|center[- ]radius|centre[- ]radius) form[^.?]{0,60}circle|circle[^.?]{0,80}"
                r"(?:standard|center[- ]radius|centre[- ]radius) form", re.I), "(x - h)^2 + (y - k)^2 = r^2"),
    (re.compile(r"standard form[^.?]{0,60}\bline\b|\bline\b[^.?]{0,80}standard form", re.I), "Ax + By = C"),
)  # fmt: skip
_LONE_VARIABLE = re.compile(r"\s*([A-Za-z])\s*")
_SQUARED_BRACKET = re.compile(r"(?:\\left)?\([^()]*[xy][^()]*(?:\\right)?\)\s*\^")
_BRACKET = re.compile(r"\([^()]*[xy][^()]*\)")
_ZERO = re.compile(r"\s*0\s*")
_SPACING = re.compile(r"\\[,;:! ]|\\left|\\right|\\cdot|\\dfrac|\\tfrac")


def _features(equation: str) -> dict | None:
    """The shape of a one-equation text (module docstring), or None when it is not one equation."""
    equation = _SPACING.sub(" ", equation).replace("\u2212", "-")
    if equation.count("=") != 1 or any(mark in equation for mark in "<>"):
        return None
    left, right = equation.split("=")
    lone = _LONE_VARIABLE.fullmatch(left)
    return {
        "lone": lone.group(1) if lone is not None else None,
        "constant right": not re.search(r"[xy]", right),
        "zero right": _ZERO.fullmatch(right) is not None,
        "squared bracket": _SQUARED_BRACKET.search(equation) is not None,
        "bracket": _BRACKET.search(equation) is not None,
    }


def asked_template(problem: str | None) -> str | None:
    """The template of the equation form the problem asks for, or None."""
    if not problem or "form" not in problem:
        return None
    found = _TEMPLATE.search(problem)
    if found is not None and "=" in found.group(1):
        return found.group(1)
    return next((template for pattern, template in _NAMED if pattern.search(problem)), None)


def equation_form_refusal(answer: str, reference: str, problem: str | None) -> str | None:
    """ "not in the form asked" when the answer's equation lacks a feature of the asked form that the
    reference has (module docstring), else None."""
    template = asked_template(problem)
    if template is None:
        return None
    asked, have, want = _features(template), _features(answer), _features(reference)
    if asked is None or have is None or want is None:
        return None
    for feature, value in asked.items():
        if not value or want[feature] != value:
            continue  # a feature the form lacks, or one the reference itself does not show
        if have[feature] != value:
            return "not in the form asked"
    return None
