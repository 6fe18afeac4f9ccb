"""The answer the grader reads off a completion: `Extracted`, a str that also says how it was found.

    answer = make_extracted("12", "boxed", ("\\boxed{12}",), end=42)
    answer == "12", answer.rule, answer.spans         # True, "boxed", ("\\boxed{12}",)

Built by the extraction rules (`benchmarks.grading.math_answer`, `benchmarks.grading.math_boxes`,
`benchmarks.grading.math_unboxed`) and read by the checker (`benchmarks.grading.math_check`). A
module of its own so that every rule and the checker can name the type without importing each other.
"""


class Extracted(str):
    """The answer text that is graded, with the rule that found it (`rule`: "boxed", "statement",
    "whole" or "conclusion") and the exact parts of the completion it was read from (`spans`: each box, or the
    statement, the completion or its last sentence). A str, so that callers that only want the
    answer see one."""

    rule: str
    spans: tuple[str, ...]
    end: int  # where the answer's text ends in the completion read (the last box's closing brace)
    others: tuple[str, ...] = ()  # the other answers the completion commits to (`benchmarks.grading.math_commit`)
    qualifiers: tuple[str, ...] = ()  # "bound", "estimate", "unit:<word>": the words around the answer
    pending: bool = False  # others or qualifiers: the full check must read them (no fast verdict)

    def __reduce__(self):
        return make_extracted, (str(self), self.rule, self.spans, self.end, self.others, self.qualifiers)


def make_extracted(
    answer: str, rule: str, spans: tuple[str, ...], end: int = -1, others: tuple = (), qualifiers: tuple = ()
) -> Extracted:
    """An `Extracted` (built without a Python-level ``__new__``: this runs on every grading call;
    empty `others` and `qualifiers` are the class's own, not set on each answer)."""
    found = _new_str(Extracted, answer)
    found.rule, found.spans, found.end = rule, spans, end
    if others or qualifiers:
        found.others, found.qualifiers, found.pending = others, qualifiers, True
    return found


_new_str = str.__new__
