"""Answers taken back: whether the text after an answer retracts it.

    retracted("... \\boxed{12}. Wait, that is wrong.")   # True: the answer is taken back
    retracted("... \\boxed{12}. Check: 3 * 4 = 12.")     # False: a check that confirms it

`retracted(tail)` tells whether the text after an answer takes it back ("wait, that is wrong",
"that's incorrect", "no, that's not right", "scratch that", "on second thought", "let me redo",
"disregard the boxed value", "I am not giving an answer", "Correction:")
without giving a new one: the grader then reads no answer at all. A check that confirms the answer is not a retraction.

Linear in the text (regexes without nested quantifiers); only the first RETRACTION_CHARS of the
tail are read.
"""

import re

RETRACTION_CHARS = 400  # the text after an answer that is searched for a retraction
_RETRACTION = re.compile(
    r"\b(?:wait|hold on|oops|scratch that|on (?:second|further) thought|on reflection"
    r"|that(?:'s| is| was) (?:wrong|not right|incorrect|an? (?:\w+ )?(?:mistake|error))"
    r"|(?:this|that|it|my (?:answer|result)|the (?:answer|result|above)) (?:is|was) (?:wrong|incorrect|not right)"
    r"|made (?:a|an) (?:mistake|error)|let me (?:redo|recompute|reconsider|start over|try again)"
    r"|actually,? (?:no|it is not|it's not)|no,? that(?:'s| is) not"
    # The answer set aside in so many words: "disregard the boxed value", "ignore my answer above", "I am not
    # giving an answer", "I withdraw it", "don't trust that", "Correction:", "let me correct that".
    r"|disregard|(?:ignore|forget|drop|discard) (?:the|that|this|my|what|everything)\b(?: [a-z]+){0,2} (?:box|boxed"
    r"|answer|value|result|above|before|previous|earlier)|(?:i am|i'm|i will|i'll) not (?:giving|providing|offering"
    r"|committing to|stating|going to give) (?:an?|any|the|my)(?: final)? answer|no (?:final )?answer (?:from me|here)"
    r"|i (?:withdraw|retract|take back)|(?:don't|do not|can't|cannot) (?:trust|stand by|vouch for) (?:that|this|it"
    r"|the|my)|correction(?=\s*:)|let me correct|(?:that|this) (?:answer )?(?:was|is) premature)\b",
    re.IGNORECASE,
)
_CONFIRMATION = re.compile(
    r"\b(?:correct|confirm(?:s|ed)?|checks out|verified|as expected|consistent)\b", re.IGNORECASE
)


# A retraction is words: a tail without a letter takes nothing back (the gate's reading of it).
RETRACTION_TRIGGERS = r"[A-Za-z]"


def retracted(tail: str) -> bool:
    """Whether `tail`, the text after an answer, takes that answer back (module docstring)."""
    tail = tail[:RETRACTION_CHARS]
    found = _RETRACTION.search(tail)
    if found is None:
        return False
    # "Wait, let me check: 3 * 4 = 12, which is correct." confirms rather than retracts.
    return not (found.group().lower() in ("wait", "hold on") and _CONFIRMATION.search(tail, found.end()))
