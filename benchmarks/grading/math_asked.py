"""The right number as the wrong answer: an answer must be of the kind the question asks for.

    asked_refusal("0.12 \\text{ cm}", "0.12", "... How long is it in meters?")   # "another unit than asked"
    asked_refusal("y = 12", "12", "If $x + y = 20$ ..., what is $x$?")          # "another variable than asked"
    asked_refusal("\\ge 12", "12", "...")                                      # "an inequality, not a value"
    asked_refusal("75\\%", "\\frac34", "What fraction ...")                      # "a percent where none is asked"
    form_refusal("y - 3 = 2x", "... in slope-intercept form.")                  # "not in slope-intercept form"

`asked_refusal` (both modes) refuses, whatever the value:
- an inequality or approximation marker (``\\ge``, ``<``, ``\\approx``, ``\\sim``, ...) where the
  reference has none: a bound or an estimate is never the equality asked for. Where the reference is
  an interval, an inequality of the lone variable reads as one (``x > 5`` for ``(5, \\infty)``), but
  a half-solved one (``2x > 10``) does not;
- a chain of equalities whose plain numbers differ (``n = 13 = 12``);
- a unit other than the one the question asks for ("in meters", "how many minutes", "how many
  cents" answered in dollars), both units of a table of common units (length, mass, time, volume,
  money), read as the first unit word after the number ("60 miles per hour": miles); a unit of length
  with its power: a length where an area is asked ("12 feet" for square feet), an area where a length
  or a volume is ("square", "sq", "cubic", "^2", "\u00b2", "squared");
- another variable: ``y = 12`` where the question asks for $x$ ("find $x$", "what is $x$",
  "solve for $x$", "the value of $x$");
- a percent where the reference and the question have none (a fraction or a decimal is asked), or,
  where a percent is asked, a percent of another number (``1200\\%`` for 12 percent);
- a set (``\\{2, 3\\}``) where the reference is an ordered pair or an interval;
- the question's own sum, product, integral or limit (``\\sum``, ...) where the reference has none;
- an equation in another form than the one the question names (`benchmarks.grading.math_equation_form`);
- a value named as another quantity than asked (`other_quantity`: "**Area = 16**" where the perimeter
  is asked), for the quantities of a short table, each with the names a question may use for it.
`form_refusal` (strict mode) refuses an answer not in the form asked: "slope-intercept form" or
"the form $y = mx + b$" wants ``y`` alone on the left and no ``y`` on the right; "ordered pair"
wants a parenthesised tuple, not ``x = 2, y = 3``.
All regexes are linear and run on short answers and the problem's head.
"""

import re

from benchmarks.grading.math_equation_form import equation_form_refusal

_MARKER = re.compile(
    r"\\(?:geq?|leq?|geqslant|leqslant|gt|lt|approx|sim|simeq|neq?|propto)(?![A-Za-z])|[<>\u2264\u2265\u2248\u2260]"
)
_INTERVAL = re.compile(r"^\s*(?:\\left)?[(\[].*,.*(?:\\right)?[)\]]\s*$", re.DOTALL)
_RELATION = r"(?:<|>|\\[lg]eq?(?![A-Za-z])|\\[lg]eqslant|\\[lg]t(?![A-Za-z])|\u2264|\u2265)"
_SOLVED_INEQUALITY = re.compile(  # "x > 5", "3 < \lambda \le 4": the lone variable between bounds
    rf"\s*(?:[^<>=]+{_RELATION}\s*)?(?:[a-zA-Z]|\\[a-zA-Z]+)\s*{_RELATION}[^<>=]+"
)
_OR_PARTS = re.compile(r"\\text\{\s*or\s*\}|\bor\b|\\lor|\\vee|,")
_PLAIN_NUMBER = re.compile(r"\s*-?\d+(?:\.\d+)?\s*")
_UNITS = {
    "mm": r"mm|millimet(?:er|re)s?",
    "cm": r"cm|centimet(?:er|re)s?",
    "km": r"km|kilomet(?:er|re)s?",
    "m": r"m|met(?:er|re)s?",
    "in": r"inch(?:es)?",
    "ft": r"ft|feet|foot",
    "yd": r"yd|yards?",
    "mi": r"mi|miles?",
    "mg": r"mg|milligrams?",
    "kg": r"kg|kilograms?",
    "g": r"g|grams?",
    "lb": r"lbs?|pounds?",
    "oz": r"oz|ounces?",
    "s": r"s|sec|seconds?",
    "min": r"min|minutes?",
    "h": r"h|hr|hours?",
    "day": r"days?",
    "month": r"months?",
    "year": r"years?|yrs?",
    "deg": r"degs?|degrees?",
    "rad": r"rads?|radians?",
    "t": r"tons?|tonnes?",
    "week": r"weeks?",
    "ml": r"ml|millilit(?:er|re)s?",
    "l": r"l|lit(?:er|re)s?",
    "cent": r"cents?|\\cent|\\textcent",
    "dollar": r"dollars?|\\\$",
}
_UNIT_WORD = {name: re.compile(rf"(?:{pattern})", re.IGNORECASE) for name, pattern in _UNITS.items()}
_ANY_UNIT = "|".join(f"(?:{pattern})" for pattern in _UNITS.values())
# The power of a unit of length: "square feet", "sq ft", "ft^2", "ft²", "feet squared" (2); "cubic", "^3" (3).
_PREFIX = r"(?P<pre>(?:square|sq\.?|cubic|cu\.?)\s+)?"
_SUFFIX = r"(?P<post>\s*(?:\}\s*)?\^\s*\{?\s*[23]|\s*[²³]|\s+squared|\s+cubed)?"
_LENGTHS = ("mm", "cm", "km", "m", "in", "ft", "yd", "mi")
_ASKED_UNIT = re.compile(
    rf"\b(?:in|into|to|how many|number of)\s+{_PREFIX}(?P<unit>{_ANY_UNIT})(?![A-Za-z]){_SUFFIX}", re.IGNORECASE
)
_ANSWER_UNIT = re.compile(  # the first unit word after the number ("60 miles per hour": miles)
    rf"\d\s*(?:\\[,;: ]|~|\s)*(?:\\(?:text|mathrm|mbox|textrm)\s*\{{\s*)?{_PREFIX}(?P<unit>{_ANY_UNIT})"
    rf"(?![A-Za-z]){_SUFFIX}",
    re.IGNORECASE,
)
# A unit word right after an answer's box ("$\\boxed{150}$ millimeters long"), outside the box.
_UNIT_AFTER = re.compile(
    rf"[\s$}})]*(?:\\(?:text|mathrm|mbox|textrm)\s*\{{\s*)?{_PREFIX}(?P<unit>{_ANY_UNIT})(?![A-Za-z]){_SUFFIX}",
    re.IGNORECASE,
)
_DOLLAR_SIGN = re.compile(r"^\s*(?:\\\$|\$|\\text\{\s*\\?\$\s*\})\s*\d")
_ASKED_VARIABLE = re.compile(
    r"(?:what is|find|compute|determine|solve for|value of|evaluate)\s+(?:the value of\s+)?"
    r"\$\s*([a-zA-Z])\s*\$\s*(?:[?.,]|$|if|when|given|such|in terms)",
    re.IGNORECASE,
)
_ANSWER_VARIABLE = re.compile(r"\s*([a-zA-Z])\s*=")
_PERCENT = re.compile(r"\\%|%|\bpercent\b")
_ASKS_PERCENT = re.compile(r"percent|\\%|%", re.IGNORECASE)
_SET = re.compile(r"\s*(?:\\left)?\\\{")
_PAIR_OR_INTERVAL = re.compile(r"\s*(?:\\left)?[(\[]")
_OPERATION = re.compile(r"\\(?:sum|prod|int|iint|oint|lim)(?![A-Za-z])")
_SLOPE_INTERCEPT = re.compile(r"slope-intercept|form\s+\$\s*y\s*=\s*m\s*x\s*\+\s*b\s*\$", re.IGNORECASE)
_SOLVED_FOR_Y = re.compile(r"\s*y\s*=[^=y]*")
_ASKS_PAIR = re.compile(r"ordered (?:pair|triple)", re.IGNORECASE)
_TUPLE = re.compile(r"\s*(?:\\left)?\(.*(?:\\right)?\)\s*", re.DOTALL)


def _unit(text: str) -> str | None:
    """The table's name for a unit written as `text`, else None."""
    return next((name for name, pattern in _UNIT_WORD.items() if pattern.fullmatch(text.strip())), None)


def _power(found: re.Match) -> int:
    """The power a unit match raises its unit to: 2 for an area ("square feet", "ft^2"), 3 for a volume."""
    written = ((found.group("pre") or "") + (found.group("post") or "")).lower()
    return 2 if ("sq" in written or "2" in written or "²" in written) else 3 if written.strip() else 1


def unit_after(after: str) -> str | None:
    """The unit word (of the table above) that the text right after an answer's box starts with, with
    its power ("square feet" for "ft^2"), else None."""
    found = _UNIT_AFTER.match(after, 0, 80)
    if found is None:
        return None
    return {1: "", 2: "square ", 3: "cubic "}[_power(found)] + found.group("unit")


def _unit_refusal(answer: str, problem: str, written: str) -> str | None:
    named = _ANSWER_UNIT.search(answer)
    asked = list(_ASKED_UNIT.finditer(problem))
    if not asked:
        return None
    want = _unit(asked[-1].group("unit"))
    if named is None:  # a dollar sign, as written (`answer` has it dropped), is a unit too
        return "another unit than asked" if want == "cent" and _DOLLAR_SIGN.match(written) else None
    have = _unit(named.group("unit"))
    if have and want and have != want:
        return "another unit than asked"
    # A length where an area is asked ("12 feet" for square feet), or an area where a volume is: another kind.
    lengths = have in _LENGTHS and want in _LENGTHS
    return "another unit than asked" if lengths and _power(named) != _power(asked[-1]) else None


def _percent_refusal(answer: str, reference: str, problem: str | None) -> str | None:
    if not _PERCENT.search(answer) or _PERCENT.search(reference):
        return None
    if problem is None or not _ASKS_PERCENT.search(problem):
        return "a percent where none is asked"
    number = _PERCENT.sub("", answer)
    if _PLAIN_NUMBER.fullmatch(number) and _PLAIN_NUMBER.fullmatch(reference):
        return None if float(number) == float(reference) else "not the percent asked"
    return None


def _false_chain(answer: str) -> bool:
    """An equality chain whose plain-number sides differ (``n = 13 = 12``)."""
    sides = answer.split("=")
    numbers = {float(side) for side in sides if _PLAIN_NUMBER.fullmatch(side)}
    return len(sides) > 2 and len(numbers) > 1


def asked_refusal(answer: str, reference: str, problem: str | None, written: str | None = None) -> str | None:
    """Why `answer` is not the kind of answer asked for, in any mode (module docstring), else None;
    `written`: the answer as written, where `answer` was normalised (a dollar sign dropped)."""
    if _MARKER.search(answer) and not _MARKER.search(reference):
        intervals = _INTERVAL.match(reference) or "\\cup" in reference
        if not (intervals and all(_SOLVED_INEQUALITY.fullmatch(part) for part in _OR_PARTS.split(answer))):
            return "an inequality or approximation, not a value"
    if "=" in answer and _false_chain(answer):
        return "false equation"
    if _SET.match(answer) and _PAIR_OR_INTERVAL.match(reference) and not _SET.match(reference):
        return "a set where a pair or interval is asked"
    if _OPERATION.search(answer) and not _OPERATION.search(reference):
        return "the question's operation given back"
    reason = _percent_refusal(answer, reference, problem) or equation_form_refusal(answer, reference, problem)
    if reason is not None or problem is None:
        return reason
    named = _ANSWER_VARIABLE.match(answer)
    asked = _ASKED_VARIABLE.search(problem)
    if named and asked and named.group(1) != asked.group(1) and not _ANSWER_VARIABLE.match(reference):
        return "another variable than asked"
    return _unit_refusal(answer, problem, answer if written is None else written)


# Quantities a completion may name its value by ("Area = 24"), each with the words a question uses for it.
_QUANTITIES = {
    "area": ("area",), "perimeter": ("perimeter",), "circumference": ("circumference",), "volume": ("volume",),
    "mean": ("mean", "average"), "average": ("mean", "average"), "median": ("median",), "mode": ("mode",),
    "range": ("range",), "sum": ("sum", "add", "total"), "product": ("product", "multipl", "times"),
    "difference": ("difference", "subtract", "minus"), "quotient": ("quotient", "divid"),
    "remainder": ("remainder",), "probability": ("probability", "chance", "likel"),
    "lcm": ("lcm", "least common multiple", "lowest common multiple"),
    "gcd": ("gcd", "gcf", "hcf", "greatest common", "highest common"), "gcf": ("gcd", "gcf", "greatest common"),
    "slope": ("slope", "gradient"), "radius": ("radius",), "diameter": ("diameter",), "hypotenuse": ("hypotenuse",),
    "height": ("height", "tall", "high"), "width": ("width", "wide"), "depth": ("depth", "deep"),
    "speed": ("speed", "fast", "velocity", "rate"), "age": ("age", "old"), "weight": ("weight", "weigh", "heavy"),
    "semiperimeter": ("semiperimeter", "semi-perimeter"), "diagonal": ("diagonal",), "apothem": ("apothem",),
    "altitude": ("altitude", "height"), "chord": ("chord",), "arc": ("arc",), "surface": ("surface",),
    "inradius": ("inradius", "inscribed"), "circumradius": ("circumradius", "circumscribed"), "angle": ("angle",),
    "supplement": ("supplement",), "complement": ("complement",), "edges": ("edge",), "vertices": ("vert",),
    "faces": ("face",),
}  # fmt: skip
# A sentence's subject that names the value of the box it ends on: "The area of the square is $4^2 = \boxed{16}$",
# "The diameter is $\boxed{5}$" (a name of the table, then a verb of being; only maths after it).
_SUBJECT = re.compile(
    r"\b(?:the|its|his|her|their|this|that|our|an?)\s+(?:[a-z-]+\s+){0,2}?(" + "|".join(_QUANTITIES)
    + r")s?\b(?:\s+of\s+[^.;:=$]{1,40}?)?\s+(?:is|equals|was|are|measures|comes to|must be|will be|becomes|=)"
    r"(?=(?:[^A-Za-z]|\\[A-Za-z]+)*\Z)",
    re.IGNORECASE,
)  # fmt: skip


def subject_quantity(before: str) -> str | None:
    """The quantity of the table that the clause ending at a box names as its subject (`_SUBJECT`), else None."""
    found = [match.group(1).lower() for match in _SUBJECT.finditer(before)]
    return found[-1] if found else None


def asks_quantity(problem: str | None) -> bool:
    """Whether the problem names a quantity of the table at all (then a value named as another is another's)."""
    lowered = (problem or "").lower()
    return any(alias in lowered for aliases in _QUANTITIES.values() for alias in aliases)


def other_quantity(name: str, problem: str | None) -> bool:
    """Whether `name` ("area", "total cost"), the words a completion names its value by, names a quantity
    of the table that the problem does not ask about (a name outside the table says nothing)."""
    if not problem:
        return False
    lowered = problem.lower()
    words = [word for word in name.lower().split() if word in _QUANTITIES]
    return bool(words) and not any(alias in lowered for word in words for alias in _QUANTITIES[word])


def form_refusal(answer: str, problem: str | None) -> str | None:
    """Why `answer` is not in the equation form the problem asks for (strict mode), else None."""
    if problem and _SLOPE_INTERCEPT.search(problem) and not _SOLVED_FOR_Y.fullmatch(answer):
        return "not in the form asked"
    if problem and _ASKS_PAIR.search(problem) and not _TUPLE.fullmatch(answer):
        return "not the ordered pair asked"
    return None
