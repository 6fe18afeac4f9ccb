"""`harness plan` on the paper profile's stated assumptions, on a fabricated Table 1 folder and store, and
every mistake a user can make with it as one line and exit status 2."""

import json

import mlflow
import numpy as np
import pytest

from harness.cli import main
from harness.profiles import TRAIN_EXPERIMENT
from harness.reports.stats.accuracy import PAPER_ASSUMPTIONS
from harness.reports.stats.seed_planner import plan
from harness.tracking import check_store


def scores(profile="tiny", rows=("GRPO", "DAPO"), seeds=3, problems=50, samples=4):
    """A scores.json payload: per-problem means of `samples` draws around a common difficulty."""
    rng = np.random.default_rng(0)
    chance = rng.uniform(0.1, 0.9, problems)
    payload = {"profile": profile, "samples": samples, "benchmarks": ["arith"], "trained": list(rows), "rows": {}}
    for label in rows:
        payload["rows"][label] = {
            "arith": {
                str(s): {str(i): rng.binomial(samples, chance[i]) / samples for i in range(problems)}
                for s in range(seeds)
            }
        }
    return payload


def test_the_paper_profile_uses_the_stated_assumptions(capsys):
    assert main(["plan", "--profile", "paper", "--difference", "5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("harness plan: the paper profile's Table 1 budget is 1 seed x 32 samples per problem")
    assert "stated assumptions (harness.reports.stats.power.PAPER_ASSUMPTIONS" in out[1]
    assert out[2] == "power: simulated at the stated components (normal tables of the mean squares)"
    assert out[3].split()[:3] == ["benchmark", "problems", "seed"] and "for 5 points: seeds x samples (power)" in out[3]
    lines = {line.split()[0]: line for line in out[4:9]}
    assert set(lines) == set(PAPER_ASSUMPTIONS) and lines["aime24"].split()[1] == "30"
    # 30 problems: 5 seeds x 64 samples reach 80% power for 5 points, 8 seeds x 16 too (the fiducial mixture
    # needed 8 x 32: its 95% test over-covered by the Behrens-Fisher margin; the Welch-Aspin critical values
    # of harness.reports.stats.welch_aspin hold 5% at every seed share, so 4 df of seed term cost less)
    assert "5x64 (0.8" in lines["aime24"] and "8x16 (0.8" in lines["aime24"] and "3x" not in lines["aime24"]
    assert "points" in lines["math500"] and "x" in lines["math500"].split("points")[-1]


def test_a_small_difference_on_30_problems_says_what_limits_it(capsys):
    plan("paper", 1.0, None, None)
    aime = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("aime24"))
    assert "none up to 32 seeds x 64 samples (unlimited seeds and samples on 30 problems: 3." in aime


def test_components_measured_on_a_table1_folder(tmp_path, capsys):
    (tmp_path / "scores.json").write_text(json.dumps(scores()))
    components = plan("tiny", 2.5, str(tmp_path), None)
    out = capsys.readouterr().out
    assert components["arith"].problems == 50 and components["arith"].seeds == 3 and components["arith"].samples == 4
    assert f"measured on {tmp_path / 'scores.json'} (rows GRPO, DAPO; 4 samples per problem)" in out
    assert "the tiny profile's Table 1 budget is 5 seeds x 4 samples" in out
    assert "at the fiducial medians of the pilot's mean squares" in out and "3 seeds per row" in out
    assert components["arith"].pilot.seed_df == 4  # two trained rows of 3 seeds
    assert plan(None, 2.5, str(tmp_path), None)["arith"] == components["arith"]  # the folder's profile


def test_the_default_folder_of_the_profile_is_found(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "runs" / "table1-smol"
    folder.mkdir(parents=True)
    (folder / "scores.json").write_text(json.dumps(scores("smol")))
    monkeypatch.chdir(tmp_path)
    assert main(["plan", "--profile", "smol"]) == 0
    assert "measured on runs/table1-smol/scores.json" in capsys.readouterr().out


def test_components_of_the_newest_report_in_a_store(tmp_path, capsys):
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    check_store(uri)
    client = mlflow.MlflowClient(uri)
    experiment = client.create_experiment(TRAIN_EXPERIMENT, artifact_location=str(tmp_path / "artifacts"))
    for problems in (20, 30):  # two reports: the newer (30 problems) counts
        run = client.create_run(experiment, tags={"table.report": "tiny"}).info.run_id
        local = tmp_path / run / "scores.json"
        local.parent.mkdir()
        local.write_text(json.dumps(scores(problems=problems)))
        client.log_artifact(run, str(local))
        client.set_terminated(run, "FINISHED")
    assert main(["plan", "--tracking-uri", uri]) == 0
    out = capsys.readouterr().out
    assert "arith      30 " in out
    # the store and the report run, not the temporary download that was already deleted
    assert f"measured on the Table 1 report run {run} in {uri} (rows GRPO, DAPO" in out and "scores.json" not in out
    assert main(["plan", "--tracking-uri", uri, "--profile", "smol"]) == 2
    assert "no Table 1 report of the smol profile with per-problem scores" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--profile", "tiny"], "no measured Table 1 run of the tiny profile: run `harness table1 --profile tiny`"),
        (["--profile", "huge"], "--profile='huge' is not known; valid: tiny, smol, paper"),
        (["--difference", "0"], "--difference=0 is out of range; allowed: (0, 100] points"),
        (["--difference", "150"], "--difference=150 is out of range; allowed: (0, 100] points"),
        (["--difference", "1e300"], "--difference=1e+300 is out of range"),
        (["--from", "ONESEED"], "holds one seed per row: one seed measures neither the seed variance nor"),
        (["--difference", "nan"], "--difference=nan is out of range"),
        (["--from", "FOLDER", "--profile", "paper"], "holds a Table 1 of the tiny profile, not paper"),
        (["--from", "EMPTY"], "no scores.json there"),
        (["--from", "BROKEN"], "cannot read the scores of a Table 1 run from"),
        (["--from", "FOLDER", "--tracking-uri", "sqlite:///x.db"], "not allowed with argument"),
        (["--tracking-uri", "sqlite:///NOWHERE/x.db"], "no tracking store at"),
        (["--color"], "unexpected argument '--color'"),
    ],
)
def test_every_mistake_is_one_line_and_exit_2(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    folders = (("FOLDER", scores()), ("BROKEN", None), ("EMPTY", None), ("ONESEED", scores(seeds=1)))
    for name, content in ((n, "{not json" if n == "BROKEN" else c and json.dumps(c)) for n, c in folders):
        (tmp_path / name).mkdir()
        if content is not None:
            (tmp_path / name / "scores.json").write_text(content)
    argv = [
        a.replace("FOLDER", str(tmp_path / "FOLDER"))
        .replace("ONESEED", str(tmp_path / "ONESEED"))
        .replace("NOWHERE", str(tmp_path / "nowhere"))
        for a in argv
    ]
    try:
        code = main(["plan", *argv])
    except SystemExit as stop:  # argparse's own refusals (two sources at once) exit while parsing
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert not (tmp_path / "nowhere").exists()
