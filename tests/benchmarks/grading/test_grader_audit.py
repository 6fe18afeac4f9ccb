"""benchmarks.grading.grader_audit on a small fabricated set whose numbers are known (three readings are wrong on
purpose, so that every count is exercised), its cache, and the `harness grader-audit` command."""

import json

import mlflow
import pytest

import benchmarks.grading.grader_audit as grader_audit
from benchmarks.grading.grader_audit import audit_line, audit_table, cached_audit, run_audit
from harness.cli import main

TIMES = "What is 3 times 4?"
SUM = "What is $9+6$?"


def case(case_id, family, completion, reference, problem, lenient, strict, kind_of_set="probes"):
    return {
        "id": case_id,
        "set": kind_of_set,
        "family": family,
        "problem": problem,
        "reference": reference,
        "completion": completion,
        "truncated": False,
        "lenient": lenient,
        "strict": strict,
        "reason": f"reading of {case_id}",
    }


CASES = [
    case("real-1", "real", "\\boxed{12}", "12", TIMES, True, True, "graded set"),
    case("frac", "unevaluated", "So \\boxed{\\frac{24}{2}}.", "12", TIMES, True, False),
    case("expand", "restatement", "\\boxed{(x+4)(x-1)}", "x^2+3x-4", "Expand $(x-1)(x+4)$.", False, False),
    # misread on purpose: the grader refuses two numbers side by side, the "reading" credits them
    case("misread-side", "side_by_side", "\\boxed{9\\;6}", "15", SUM, True, True),
    # misread on purpose: a right answer the "reading" calls a hedge: a non-answer credited in both modes
    case("misread-hedge", "hedge", "\\boxed{15}", "15", SUM, False, False),
    # misread on purpose: a plain value the "reading" calls unevaluated: credited where strict mode must refuse
    case("misread-unevaluated", "unevaluated", "\\boxed{12}", "12", TIMES, True, False),
]


@pytest.fixture(scope="module")
def result():
    return run_audit(CASES)


def test_counts_per_family_and_mode_are_the_known_ones(result):
    assert result["cases"] == 6 and result["sets"] == {"graded set": 1, "probes": 5}
    lenient, strict = result["modes"]["lenient"], result["modes"]["strict"]
    assert (lenient["agree"], lenient["false_positives"], lenient["false_negatives"]) == (4, 1, 1)
    assert (strict["agree"], strict["false_positives"], strict["false_negatives"]) == (3, 2, 1)
    assert lenient["agreement"] == pytest.approx(4 / 6) and strict["agreement"] == pytest.approx(3 / 6)
    families = {(g["set"], g["family"]): g for g in result["families"]}
    assert list(families) == [
        ("graded set", "real"),
        ("probes", "unevaluated"),
        ("probes", "restatement"),
        ("probes", "side_by_side"),
        ("probes", "hedge"),
    ]
    unevaluated = families["probes", "unevaluated"]
    assert unevaluated["n"] == 2 and unevaluated["lenient"]["agreement"] == 1.0
    assert unevaluated["strict"] == {"agree": 1, "false_positives": 1, "false_negatives": 0, "agreement": 0.5}
    assert families["probes", "side_by_side"]["lenient"]["false_negatives"] == 1
    assert result["non_answers_credited"] == 2
    assert result["non_answers_credited_ids"] == ["misread-hedge", "misread-unevaluated"]


def test_every_disagreement_is_listed_with_both_sides(result):
    pairs = [(d["id"], d["mode"]) for d in result["disagreements"]]
    assert pairs == [
        ("misread-side", "lenient"),
        ("misread-side", "strict"),
        ("misread-hedge", "lenient"),
        ("misread-hedge", "strict"),
        ("misread-unevaluated", "strict"),
    ]
    side = result["disagreements"][0]
    assert side["reading"] is True and side["grader"] is False and side["why_reader"] == "reading of misread-side"
    assert side["why_grader"] and side["extracted"] == "9\\;6"
    assert f"  lenient misread-side: grader refused ({side['why_grader']}) [answer '9\\\\;6']" in audit_table(
        result, show_disagreements=True
    )


def test_the_table_and_the_line(result):
    table = audit_table(result)
    lines = table.splitlines()
    header = next(line for line in lines if line.startswith("set"))
    assert header.split() == ["set", "family", "n", "lenient", "FP", "FN", "strict", "FP", "FN"]
    row = next(line for line in lines if line.startswith("probes") and "unevaluated" in line)
    assert row.split() == ["probes", "unevaluated", "2", "100.0%", "0", "0", "50.0%", "1", "0"]
    whole = next(line for line in lines if line.startswith("all"))
    assert whole.split() == ["all", "6", "66.7%", "1", "1", "50.0%", "2", "1"]
    assert "lenient  66.7% agreement on 6 cases, 1 false positive, 1 false negative" in lines
    assert "non-answers credited: 2 (misread-hedge, misread-unevaluated)" in lines
    assert "disagreements" not in table
    shown = audit_table(result, show_disagreements=True)
    assert (
        "  strict  misread-unevaluated: grader credited [answer '12']; reader: reading of misread-unevaluated" in shown
    )
    assert audit_line(result) == (
        "Grader audit: lenient 66.7% / strict 50.0% agreement with a careful reading on 6 cases; "
        "2 non-answers credited (harness grader-audit)"
    )


def test_the_audit_is_cached_per_grader_and_cases(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path))
    monkeypatch.setattr(grader_audit, "audit_cases", lambda data_dir=None: CASES)
    graded = []
    monkeypatch.setattr(grader_audit, "run_audit", lambda cases: graded.append(1) or run_audit(cases))
    first = cached_audit()
    assert cached_audit() == first and len(graded) == 1  # the second read comes from the cache
    assert list((tmp_path / "grader_audit").iterdir()) == [tmp_path / "grader_audit" / f"{first['fingerprint']}.json"]
    monkeypatch.setattr(grader_audit, "audit_cases", lambda data_dir=None: CASES[:3])  # other cases, other key
    assert cached_audit()["cases"] == 3 and len(graded) == 2


def test_a_line_that_cannot_be_had_says_why(monkeypatch):
    def broken(data_dir=None):
        raise FileNotFoundError("no benchmark data")

    monkeypatch.setattr(grader_audit, "audit_cases", broken)
    assert (
        audit_line() == "Grader audit: not available (FileNotFoundError: no benchmark data; run harness grader-audit)"
    )


@pytest.fixture
def fabricated(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(grader_audit, "audit_cases", lambda data_dir=None: CASES)


def test_the_command_prints_writes_and_tracks(fabricated, tmp_path, capsys):
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    out = tmp_path / "audit" / "grader_audit.json"
    assert main(["grader-audit", "--json", str(out), "--tracking-uri", uri, "--show-disagreements"]) == 0
    printed = capsys.readouterr().out
    assert "probes      unevaluated   2" in printed and "non-answers credited: 2" in printed
    assert "disagreements (5):" in printed and printed.count("Grader audit: lenient 66.7%") == 1
    written = json.loads(out.read_text())
    assert written["non_answers_credited_ids"] == ["misread-hedge", "misread-unevaluated"]
    assert len(written["disagreements"]) == 5
    client = mlflow.MlflowClient(uri)
    (run,) = client.search_runs([client.get_experiment_by_name("grader-audit").experiment_id])
    assert run.data.metrics["agreement_lenient"] == pytest.approx(4 / 6)
    assert run.data.metrics["false_positives_strict"] == 2 and run.data.metrics["non_answers_credited"] == 2
    assert {a.path for a in client.list_artifacts(run.info.run_id)} == {"grader_audit.json", "grader_audit.md"}


def test_bad_options_are_one_line(fabricated, tmp_path, capsys):
    assert main(["grader-audit", "--tracking-uri", "none", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err == "harness grader-audit: error: unexpected argument '--bogus'; see harness grader-audit --help\n"
    (tmp_path / "taken").mkdir()
    assert main(["grader-audit", "--tracking-uri", "none", "--json", str(tmp_path / "taken")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a file" in err and "Traceback" not in err
    assert main(["grader-audit", "--tracking-uri", "none"]) == 0  # nothing tracked, the table printed
    assert "non-answers credited: 2" in capsys.readouterr().out


@pytest.mark.parametrize("entry", ["{}", "[1, 2]", '"text"', "FORGED"])
def test_a_cache_entry_of_another_shape_or_a_forged_count_is_graded_anew(entry, tmp_path, monkeypatch, capsys):
    """{} and [1, 2] were tracebacks (KeyError 'families', TypeError); a forged entry of the right shape
    made the command print "100.0% on 99999 cases"."""
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path))
    monkeypatch.setattr(grader_audit, "audit_cases", lambda data_dir=None: CASES)
    graded = []
    monkeypatch.setattr(grader_audit, "run_audit", lambda cases: graded.append(1) or run_audit(cases))
    honest = cached_audit()
    path = tmp_path / "grader_audit" / f"{honest['fingerprint']}.json"
    if entry == "FORGED":
        forged = {**honest, "cases": 99999}
        forged["modes"] = {
            m: {**c, "agree": 99999, "false_positives": 0, "agreement": 1.0} for m, c in honest["modes"].items()
        }
        entry = json.dumps(forged)
    path.write_text(entry)
    assert cached_audit() == honest and len(graded) == 2  # graded again, and the entry replaced
    assert json.loads(path.read_text()) == honest
    assert main(["grader-audit", "--tracking-uri", "none"]) == 0 and "on 6 cases" in capsys.readouterr().out


def test_a_cache_folder_that_is_a_file_is_refused_before_the_grading(tmp_path, monkeypatch, capsys):
    """All the cases were graded, then a raw "[Errno 20] Not a directory" and no result."""
    (tmp_path / "cache").write_text("a file")
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(grader_audit, "audit_cases", lambda data_dir=None: CASES)
    graded = []
    monkeypatch.setattr(grader_audit, "run_audit", lambda cases: graded.append(1) or run_audit(cases))
    assert main(["grader-audit", "--tracking-uri", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot keep the grader audit in" in err and "$HARNESS_CACHE" in err
    assert graded == [] and (tmp_path / "cache").read_text() == "a file"


def test_a_database_store_without_a_place_for_files_is_refused_before_the_grading(fabricated, tmp_path, monkeypatch):
    """It printed the whole audit, then refused with advice naming options grader-audit did not have."""
    import harness.reports.grader_audit_report as report
    import harness.tracking as tracking
    from harness.common.errors import TrackingError

    class NoExperiment:
        def __init__(self, uri):
            pass

        def get_experiment_by_name(self, name):
            return None

    monkeypatch.setattr(tracking, "check_store", lambda uri, **kw: None)
    monkeypatch.setattr(tracking, "RetryingClient", NoExperiment)
    graded = []
    monkeypatch.setattr(grader_audit, "run_audit", lambda cases: graded.append(1) or run_audit(cases))
    database = "postgresql://postgres:PW@127.0.0.1/rel3_pw"
    with pytest.raises(
        TrackingError, match=r"keeps no files: .*--artifact-root \(harness eval, harness grader-audit\)"
    ):
        report.grader_audit(database, log=lambda line: None)
    assert graded == []
    assert report.artifact_location(database, str(tmp_path / "files")) == (tmp_path / "files").as_uri()
