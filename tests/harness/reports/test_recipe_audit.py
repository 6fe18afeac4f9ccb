"""The recipe audit (harness.reports.recipe_audit): the paper profile follows the official script, the
paper-text profile shows where the text says less, and a changed knob is marked."""

from harness.cli import main
from harness.reports.recipe_audit import KNOBS, audit_markdown, audit_rows


def _marks(profile, overrides=None):
    return {r["name"]: r["mark"] for r in audit_rows(profile, overrides)}


def test_the_paper_profile_follows_the_official_script():
    marks = _marks("paper")
    assert set(marks.values()) <= {"=", "~"}, {k: v for k, v in marks.items() if v == "DIFF"}
    # the recipe's own terms are on: NLL on positives and dynamic sampling, each a stated mechanism
    assert marks["NLL on rewarded responses"] == "~" and marks["dynamic sampling"] == "~"
    assert marks["max response tokens"] == "=" and marks["weight decay"] == "="
    assert all(k.where for k in KNOBS)


def test_the_paper_text_profile_differs_where_the_text_says_nothing():
    marks = _marks("paper-text")
    for knob in ("NLL on rewarded responses", "dynamic sampling", "max response tokens", "weight decay", "reward"):
        assert marks[knob] == "DIFF", knob
    for knob in ("beta1 / beta2", "clip eps low / high", "dual clip c", "learning rate", "responses per prompt"):
        assert marks[knob] == "=", knob


def test_a_changed_knob_is_marked():
    marks = _marks("paper", {"algo.positive_nll_coef": 0.0, "loss.beta1": 0.75, "rollout.max_new_tokens": 8192})
    assert marks["NLL on rewarded responses"] == "DIFF"
    assert marks["beta1 / beta2"] == "DIFF"
    assert marks["max response tokens"] == "DIFF"
    rows = {r["name"]: r for r in audit_rows("paper", {"loss.beta1": 0.75})}
    assert rows["beta1 / beta2"]["ours"] == "0.75 / 1" and rows["beta1 / beta2"]["script"] == "0.5 / 1"


def test_recipe_audit_command_prints_the_three_columns(capsys):
    assert main(["recipe-audit", "--profile", "paper"]) == 0
    out = capsys.readouterr().out
    assert "| knob | paper's text | official script | where | ours | mark |" in out
    assert f"0 of {len(KNOBS)} knobs differ from the script." in out
    assert out.strip() == audit_markdown("paper").strip()
    assert main(["recipe-audit", "--profile", "papr"]) == 2
    assert "--profile='papr' is not known" in capsys.readouterr().err


def test_print_config_shows_the_recipe_terms(capsys):
    assert main(["train", "--profile", "paper", "--print-config"]) == 0
    out = capsys.readouterr().out
    assert "positive_nll_coef: 0.1" in out and "dynamic_sampling: true" in out and "gen_batch_prompts: 256" in out
