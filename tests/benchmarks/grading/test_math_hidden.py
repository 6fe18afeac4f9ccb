"""Hidden boxes and retractions (`benchmarks.grading.math_hidden`, `benchmarks.grading.math_retraction`)."""

import pytest

from benchmarks.grading.math_hidden import visible
from benchmarks.grading.math_retraction import retracted


@pytest.mark.parametrize(
    "hidden",
    ["% \\boxed{16}", "\\phantom{\\boxed{16}}", "\\hphantom{x \\boxed{16}}", "```\n\\boxed{16}\n```", "`\\boxed{16}`"]
    + ["<!-- \\boxed{16} -->", "\\iffalse \\boxed{16} \\fi"],
)
def test_what_a_reader_does_not_see_is_blanked_in_place(hidden):
    text = f"So \\boxed{{15}} {hidden}\ndone"  # a comment runs to the end of its line
    seen = visible(text)
    assert len(seen) == len(text) and "16" not in seen and "\\boxed{15}" in seen and seen.endswith("done")


def test_percent_signs_and_plain_text_stay():
    for text in ("It rose by 20% so \\boxed{120}", "50\\% of \\boxed{8}", "no markers \\boxed{1}"):
        assert visible(text) == text


@pytest.mark.parametrize(
    ("tail", "taken_back"),
    [
        (". Wait, that is wrong.", True),
        (". Hmm, that's incorrect; I made a mistake.", True),
        (". Scratch that.", True),
        (". No, that's not right.", True),
        (". Wait, let me verify: 3 * 4 = 12, which is correct.", False),
        (". Check: $3 \\cdot 4 = 12$.", False),
        (". Option (B) is wrong because it is negative.", False),
        (".", False),
    ],
)
def test_retractions(tail, taken_back):
    assert retracted(tail) is taken_back
