"""Rule 1 of the answer rules: the last box of a completion, and the boxes of the same answer before it.

    last_box("so \\boxed{\\frac{1}{2}}.")        # (3, 10, 21, 22): where the box and its content lie
    boxed_answer(seen, text)                     # Extracted("2, 3", rule="boxed") for "\\boxed{2}, \\boxed{3}"

`last_box` finds the box that starts last (``\\boxed{...}`` or ``\\fbox{...}``, braces balanced) in
linear time; `boxed_answer` joins the boxes right before it that are the same answer split over
several (at most MAX_BOXES, each at most GAP_CHARS of separators from the next, all in the
GROUP_CHARS before the last) and keeps them only where the completion commits to them
(`benchmarks.grading.math_commit`). The rule itself, and where it stands among the others:
`benchmarks.grading.math_answer`.
"""

import re

from benchmarks.grading.math_commit import commitment
from benchmarks.grading.math_extracted import Extracted, make_extracted

MAX_BOXES = 8  # boxes joined into one answer at most
GROUP_CHARS = 2_000  # the text before the last box searched for the other boxes of its answer
GAP_CHARS = 40  # the longest separator between two boxes of one answer ("$, \\text{ and } $")

_BOX_OPEN = re.compile(r"\\(?:boxed|fbox)\s*\{")
_BRACE_TOKEN = re.compile(r"\{|\}|\\(?:boxed|fbox)\s*\{")  # literal first characters: a fast C scan
_BRACE = re.compile(r"[{}]")
# What may lie between the boxes of one answer split over several.
_BOX_SEPARATOR = re.compile(r"(?:[\s,;$&]|\\quad|\\qquad|\\[,;: ]|\\text\{\s*(?:and|or|,)?\s*\}|and|or)*")


# A box: (where "\boxed" begins, where its content begins, where its content ends, after its closing
# brace). Plain tuples, not a NamedTuple: building one is a third of the cost of grading an integer.
Box = tuple[int, int, int, int]


def _scan(text: str) -> list[Box]:
    """Every closed box, in closing order, in one pass from the first box on (a box's closing brace
    depends only on the text after it): a stack holds each open brace, with where its box began when
    it is a box's own brace; a closing brace pops its match (stray ones are ignored)."""
    first = _BOX_OPEN.search(text)
    if first is None:
        return []
    open_braces: list[tuple[int, int]] = []  # (box start or -1, index after the brace)
    closed = []
    for token in _BRACE_TOKEN.finditer(text, first.start()):
        if token.end() - token.start() > 1:  # "\boxed{"
            open_braces.append((token.start(), token.end()))
        elif text[token.start()] == "{":
            open_braces.append((-1, token.end()))
        elif open_braces:
            box_start, content_start = open_braces.pop()
            if box_start >= 0:
                closed.append((box_start, content_start, token.start(), token.end()))
    return closed


def last_box(text: str) -> Box | None:
    """The closed box that starts last (for nested boxes, the innermost). The hot path of every
    grading call: when the last ``\\boxed{`` closes, it is that box, found by matching braces forward
    from it; otherwise (it is left open) `_scan` decides, still in linear time."""
    opener = text.rfind("\\boxed")
    opener = max(opener, text.rfind("\\fbox", max(opener, 0)))
    head = _BOX_OPEN.match(text, opener) if opener >= 0 else None
    if head is not None:
        depth = 1
        for brace in _BRACE.finditer(text, head.end()):
            depth += 1 if brace.group() == "{" else -1
            if depth == 0:
                return opener, head.end(), brace.start(), brace.end()
    return max(_scan(text), default=None)  # tuples compare by their start first


NO_BOX = make_extracted("", "none", ())  # what `boxed_answer` returns for a text without a closed box


def boxed_answer(text: str, original: str | None = None) -> Extracted | None:
    """Rule 1: the last box, with the boxes of the same answer right before it, if the completion
    commits to it (`benchmarks.grading.math_commit`). `text` is what a reader sees (`visible`); the
    answer and its spans are read off `original` (same positions)."""
    last = last_box(text)
    if last is None:
        return NO_BOX
    # Most completions have one box: when no closing brace ends a separator gap right before it,
    # there is no other (the hot path of every grading call, so checked here first).
    brace = text.rfind("}", max(0, last[0] - GAP_CHARS - 1), last[0])
    single = brace < 0 or not _BOX_SEPARATOR.fullmatch(text, brace + 1, last[0])
    committed = commitment(text, [last] if single else _boxed_group(text, last), _scan)
    if committed is None:
        return None
    found, others, qualifiers = committed
    source = text if original is None else original
    if not found:  # the box withdrawn, a later statement committed to (`benchmarks.grading.math_commit`)
        return make_extracted(others[0], "statement", (others[0],), last[3])
    if len(found) == 1:  # the common case, without the joins
        box = found[0]
        spans = (source[box[0] : box[3]],)
        return make_extracted(_content(text, source, box), "boxed", spans, box[3], others, qualifiers) or None
    contents = [_content(text, source, box) for box in found]
    if len(set(contents)) == 1:  # the same answer boxed twice ("$\\boxed{42}$, $\\boxed{42}$")
        contents = contents[:1]
    answer = ", ".join(content for content in contents if content)
    spans = tuple(source[box[0] : box[3]] for box in found)
    return make_extracted(answer, "boxed", spans, found[-1][3], others, qualifiers)


def _content(seen: str, source: str, box: Box) -> str:
    """What a reader sees in a box: its text as written, or, where markup in it is hidden
    (``\\boxed{\\phantom{12}}``), what is left of it (an empty box is no answer)."""
    written = source[box[1] : box[2]]
    shown = seen[box[1] : box[2]]
    return written.strip() if shown == written else " ".join(shown.split())


def _boxed_group(text: str, last: Box) -> list[Box]:
    """The last box and the boxes of the same answer right before it, in order."""
    # Earlier boxes of the same answer lie in the GROUP_CHARS before it (a box that closes there also
    # opens there, or it is too long to be part of a split answer), each at most GAP_CHARS of
    # separators before the next; nearest first. Most completions have one box: when no closing
    # brace ends a separator gap right before it, there is no other.
    offset = max(0, last[0] - GROUP_CHARS)
    brace = text.rfind("}", max(offset, last[0] - GAP_CHARS - 1), last[0])
    if brace < 0 or not _BOX_SEPARATOR.fullmatch(text, brace + 1, last[0]):
        return [last]
    group = [last]
    for box in sorted(_scan(text[offset : last[0]]), key=lambda box: box[3], reverse=True):
        box = tuple(position + offset for position in box)
        gap_too_long = group[-1][0] - box[3] > GAP_CHARS
        if len(group) == MAX_BOXES or gap_too_long or not _BOX_SEPARATOR.fullmatch(text, box[3], group[-1][0]):
            break
        group.append(box)
    group.reverse()
    return group
