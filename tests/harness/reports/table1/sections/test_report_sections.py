"""harness.reports.table1.sections: the sections register themselves, build_report walks them in order, and
one more module is one more section in every output, where it says, when it applies."""

import csv

import pytest

from harness.profiles import EVAL_EXPERIMENT, PROFILES, TRAIN_EXPERIMENT
from harness.reports.table1.build import build_report
from harness.reports.table1.rows import ROWS
from harness.reports.table1.sections import BODY, HEAD, NOTES, SECTIONS, TAIL, Section, register, report_sections


def test_the_sections_register_themselves_in_a_fixed_order():
    names = [s.name for s in report_sections()]
    assert names == [
        "starting_policy",
        "differences",
        "votes",
        "mechanisms",
        "staleness",
        "recipe_audit",
        "grader_audit",
        "claims",
        "figures",
    ]


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="'claims' is registered twice"):
        register(Section("claims", 1, lambda inputs: None))


def one_row_report(store, log_run, tmp_path, printed):
    """build_report of GRPO on one seed, from runs logged in the module's store."""
    uri, client = store
    tags = {"table.profile": "tiny", "table.row": "GRPO", "table.seed": "0"}
    summary = {"history": [{"step": 1, "entropy": 0.5}], "stability": {"end_entropy": 0.5}}
    log_run(client, TRAIN_EXPERIMENT, {**tags, "table.hash": "sec-k"}, {"summary.json": summary}, tmp_path)
    samples = [{"benchmark": "arith", "id": i, "scores": {"acc": float(i < 3)}} for i in range(4)]
    files = {"eval/results.json": {"benchmarks": {"arith": {"primary_metric": "acc"}}}, "eval/samples.jsonl": samples}
    log_run(client, EVAL_EXPERIMENT, {**tags, "table.hash": "sec-k", "table.eval_hash": "sec-e"}, files, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    grpo = [r for r in ROWS if r.label == "GRPO"]
    report = build_report(PROFILES["tiny"], grpo, [0], out, uri, {("GRPO", 0): ("sec-k", "sec-e")}, printed.append)
    return report, out


def test_a_new_section_module_reaches_every_output_at_its_place(store, log_run, tmp_path, monkeypatch):
    """A section between the staleness (30) and recipe audit (40) places: its Markdown after the
    differences, its page block after theirs, a note, a block after the notes but before the claims (50), a CSV column,
    a printed line before the grader audit's; a section that does not apply leaves no trace."""
    import harness.reports.table1.sections.grader_audit_section as audit_section

    monkeypatch.setattr(audit_section, "audit_line", lambda: "Grader audit: (a line)")

    def build(inputs):
        return {label: len(by_seed) for label, by_seed in inputs.results.items()}  # seeds finished per row

    counted = Section(
        "counted",
        35,
        build,
        markdown=lambda found: {HEAD: ["(counted above)", ""], BODY: ["## Counted", "", f"{found}", ""]},
        html=lambda found: {BODY: ["<h2>Counted</h2>"], NOTES: ["<p>counted note</p>"], TAIL: ["<p>the end</p>"]},
        csv=lambda found: {"seeds_counted": {label: str(n) for label, n in found.items()}},
        terminal=lambda found: [f"counted {found}"],
    )
    never = Section("never", 36, build, markdown=lambda found: {BODY: ["NEVER"]}, applies=lambda inputs: False)
    monkeypatch.setitem(SECTIONS, "counted", counted)
    monkeypatch.setitem(SECTIONS, "never", never)
    printed: list[str] = []
    report, out = one_row_report(store, log_run, tmp_path, printed)

    assert report["counted"] == {"GRPO": 1} and "never" not in report
    markdown = (out / "table1.md").read_text()
    assert "NEVER" not in markdown
    assert markdown.index("(counted above)") < markdown.index("| GRPO | 1 |")
    assert markdown.index("### Difference to GRPO") < markdown.index("## Counted\n\n{'GRPO': 1}")
    assert markdown.index("## Counted") < markdown.index("## The paper's claims")
    page = (out / "table1.html").read_text()
    assert page.index("<h3>Difference to GRPO") < page.index("<h2>Counted</h2>") < page.index("counted note")
    assert page.index("counted note") < page.index("<p>the end</p>") < page.index("<h2>The paper's claims")
    names, line = csv.reader((out / "table1.csv").read_text().splitlines())
    assert names[-1] == "seeds_counted" and line[-1] == "1"
    assert printed.index("counted {'GRPO': 1}") == printed.index("Grader audit: (a line)") - 1
