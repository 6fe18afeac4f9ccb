"""Registry and suites: names, suite contents, helpful errors."""

import pytest

from benchmarks import BENCHMARKS, SUITES, get_benchmark, resolve_suite


def test_suites(manifest):
    assert [b.name for b in resolve_suite("math")] == ["aime24", "aime25", "hmmt25", "math500", "amc23"]
    assert [b.name for b in resolve_suite("fresh")] == ["aime26", "hmmt_feb26", "hmmt_nov25", "brumo25", "cmimc25"]
    assert [b.name for b in resolve_suite("code")] == ["humaneval", "livecodebench"]
    assert [b.name for b in resolve_suite("if")] == ["ifeval"]
    everything = [b.name for b in resolve_suite("all")]
    shipped = {name for name, b in BENCHMARKS.items() if b.file_name in manifest}  # shared/benchmarks' files
    assert set(everything) == shipped | {"livecodebench"}
    assert set(SUITES) >= {"math", "fresh", "code", "if", "all"}


def test_mixed_csv_keeps_order_without_repeats():
    names = [b.name for b in resolve_suite("amc22_23, math,aime24,arith_l2")]
    assert names == ["amc22_23", "aime24", "aime25", "hmmt25", "math500", "amc23", "arith_l2"]


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(ValueError, match="unknown benchmark 'aime23'; valid: aime24, aime25"):
        get_benchmark("aime23")
    with pytest.raises(ValueError, match="unknown benchmark or suite 'maths'; suites: math, fresh, code, if"):
        resolve_suite("maths")


@pytest.mark.parametrize("value", ["", "   ", " , ", ",", "math,", ",math", "math,,code", "math, ,code"])
def test_empty_names_are_errors_not_the_whole_math_suite(value):
    with pytest.raises(ValueError) as error:
        resolve_suite(value)
    message = str(error.value)
    assert message.startswith(("no benchmark or suite named in", "empty benchmark or suite name in"))
    assert repr(value) in message and "\n" not in message
    assert "suites: math, fresh, code, if, arith, countdown, all; benchmarks: aime24, aime25" in message


def test_a_value_that_is_not_text_is_an_error():
    with pytest.raises(ValueError, match="expected a suite or benchmark name, got None; suites: math"):
        resolve_suite(None)
