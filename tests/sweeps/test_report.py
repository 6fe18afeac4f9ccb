"""sweeps.sweep_report's trial table on a study made here (no training): the group column ranks the completed
trials by held-out accuracy per seed, with noise in mind, and says the comparisons are unpaired."""

import optuna
from optuna.distributions import FloatDistribution
from optuna.trial import TrialState, create_trial

from harness.reports.stats.groups import note
from sweeps.sweep_report import format_table, trial_groups, trial_rows

BETA1 = FloatDistribution(0.0, 1.0)


def study_of(trials):
    """trials: (beta1, accuracy after RL per seed or None for an old trial, state)."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize")
    for beta1, per_seed, state in trials:
        attrs = {"accuracy_after": sum(per_seed or [0.5]) / len(per_seed or [0.5]), "accuracy_gain": 0.1}
        if per_seed is not None:
            attrs |= {"accuracy_after_per_seed": per_seed, "heldout_problems": 200}
        value = attrs["accuracy_gain"] if state == TrialState.COMPLETE else None
        study.add_trial(
            create_trial(
                params={"loss.beta1": beta1},
                distributions={"loss.beta1": BETA1},
                value=value,
                user_attrs=attrs,
                state=state,
            )
        )
    return study


def test_close_trials_share_the_best_group_and_a_far_one_does_not():
    study = study_of(
        [
            # three seeds each: with two, one degree of freedom per seed variance leaves tails too heavy for
            # even 31 points to survive Holm's correction over all pairs (docs/statistics.md)
            (0.0, [0.60, 0.62, 0.61], TrialState.COMPLETE),
            (0.5, [0.63, 0.61, 0.62], TrialState.COMPLETE),  # the best, by a hair
            (1.0, [0.30, 0.32, 0.31], TrialState.COMPLETE),  # 31 points lower on 200 problems: its own group
            (0.25, None, TrialState.COMPLETE),  # recorded before per-seed accuracy was kept: no group
            (0.75, [0.9], TrialState.PRUNED),  # not complete: no group
        ]
    )
    header, rows = trial_rows(study)
    assert header[:4] == ["trial", "state", "group", "vs best"]
    group = {row[0]: row[2] for row in rows}
    assert group == {"0": "1 (unpaired)", "1": "1 (leader)", "2": "2 (unpaired)", "3": "", "4": ""}
    versus = {row[0]: row[3] for row in rows}
    assert versus["1"] == "–" and versus["2"].startswith("-31.0 [") and versus["0"].startswith("-1.0 [")
    table = format_table(header, rows)
    assert table.splitlines()[0].split()[:5] == ["trial", "state", "group", "vs", "best"]
    text = note(trial_groups(study.get_trials()), versus="vs best")
    assert "vs best: points" in text and "3 row(s) unpaired" not in text and "2 row(s) unpaired" in text


def test_one_completed_trial_gets_no_group():
    study = study_of([(0.0, [0.6], TrialState.COMPLETE), (0.5, [0.7], TrialState.FAIL)])
    header, rows = trial_rows(study)
    assert [row[2] for row in rows] == ["", ""] and note(trial_groups(study.get_trials())) == ""


def test_trials_csv_replaces_a_symlink_instead_of_writing_through_it(tmp_path, monkeypatch):
    """trials.csv of a finished sweep's folder made a symlink to a file elsewhere was overwritten
    through it (trials.md likewise: both now go through harness.common.files.atomic_write_text)."""
    import types

    import sweeps.finish as finish

    monkeypatch.setattr(finish, "save_figures", lambda study, config, folder: [])
    victim = tmp_path / "victim.csv"
    victim.write_text("keep me")
    output = tmp_path / "sweep"
    output.mkdir()
    (output / "trials.csv").symlink_to(victim)
    study = study_of([(0.2, [0.5, 0.6], TrialState.COMPLETE)])
    finish.write_report_files(study, types.SimpleNamespace(output_dir=str(output)), log=print)
    assert victim.read_text() == "keep me"
    assert not (output / "trials.csv").is_symlink()
    assert (output / "trials.csv").read_text().splitlines()[0] == ",".join(trial_rows(study)[0])
