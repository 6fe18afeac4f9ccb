"""sweeps.config: sweep files validated like the training configs (one line, exit status 2)."""

from pathlib import Path

import pytest

from harness.common.errors import ConfigError
from harness.common.uris import DEFAULT_TRACKING_URI, sqlite_path
from sweeps.config import grid_points, load_sweep_config


def test_defaults_are_the_paper_grid_on_tiny(tmp_path):
    config = load_sweep_config(None, {"output_dir": str(tmp_path)}, {"run.steps": 5})
    assert config.grid_size == 15 and config.total_trials == 15
    assert config.storage_url == f"sqlite:///{tmp_path.resolve()}/optuna.db"
    base = config.base_train_config({"loss.beta1": 0.25}, seed=3, output_dir=str(tmp_path / "t"))
    assert base.loss["name"] == "ce_gppo" and base.loss["beta1"] == 0.25 and base.run.seed == 3
    # the store harness train and harness leaderboard use by default: the leaderboard sees the trials
    assert base.run.steps == 5 and base.run.tracking_uri == DEFAULT_TRACKING_URI == config.mlflow_uri


SHIPPED = sorted((Path(__file__).parents[2] / "sweeps" / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=[path.stem for path in SHIPPED])
def test_every_shipped_sweep_file_loads_and_builds_its_trials_config(path, tmp_path):
    config = load_sweep_config(str(path), {"output_dir": str(tmp_path)}, {})
    base = config.base_train_config({"loss.beta1": 0.25, "loss.beta2": 1.0}, seed=0)
    assert base.loss["name"] == "ce_gppo" and base.loss["beta1"] == 0.25 and config.total_trials == 15
    if path.stem == "beta_grid_countdown":  # the profile's task and steps, the testbed of issue 27
        assert base.task.source == "countdown" and base.task.countdown_scheme == "addsub" and base.run.steps == 140


def test_the_default_storage_stays_in_an_output_folder_named_with_query_characters(tmp_path):
    config = load_sweep_config(None, {"output_dir": str(tmp_path / "q?x#y%z")}, {})
    assert sqlite_path(config.storage_url) == tmp_path / "q?x#y%z" / "optuna.db"


def test_a_loss_override_of_the_spaces_own_loss_and_its_parameters_are_kept():
    config = load_sweep_config(None, {"grid": {"loss.beta1": [0]}}, {"loss": "ce_gppo", "loss.eps_low": 0.3})
    assert config.base_train_config({}, 0).loss["eps_low"] == 0.3
    nested = load_sweep_config(None, {"grid": {"loss.beta1": [0]}, "overrides": {"loss": {"beta2": 0.7}}}, {})
    assert nested.base_train_config({}, 0).loss["beta2"] == 0.7  # a section is merged, not dropped


def test_yaml_booleans_in_the_grid_are_refused(tmp_path):
    path = tmp_path / "bool.yaml"
    path.write_text("study_name: b\ngrid: {loss.beta1: [true, false]}\n")
    with pytest.raises(ConfigError, match="grid loss.beta1: True is a boolean, not a number"):
        load_sweep_config(str(path), {}, {})


def test_another_space_trains_its_own_loss(tmp_path):
    config = load_sweep_config(None, {"space": "dapo", "mode": "sample", "n_trials": 3}, {})
    assert config.base_train_config({"loss.eps_high": 0.3}, 0).loss == {"name": "dapo", "eps_high": 0.3}


@pytest.mark.parametrize(
    "values, message",
    [
        ({"space": "ppo"}, "space='ppo' is not allowed; allowed: one of 'ce_gppo', 'dapo'"),
        ({"grid": {"loss.beta1": []}}, "grid is empty for loss.beta1"),
        ({"grid": {}}, "grid is empty"),
        ({"grid": {"loss.gamma": [1.0]}}, "grid: loss.gamma not in space ce_gppo"),
        ({"grid": {"loss.beta1": [5.0]}}, "outside the space's range"),
        ({"n_trials": 0}, "n_trials=0 is out of range; allowed: >= 1"),
        ({"mode": "sample"}, "n_trials is required in sample mode"),
        ({"mode": "sample", "n_trials": 2, "params": ["optim.momentum"]}, "not in space ce_gppo"),
        ({"objective": "accuracy_and_entropy", "pruner": "median"}, "cannot prune a multi-objective study"),
        ({"pruner": "sometimes"}, "pruner='sometimes' is not allowed"),
        ({"workers": 0}, "workers=0 is out of range"),
        ({"profile": "huge"}, "profile='huge' is not known"),
        ({"overrides": {"optim.lr": -1.0}}, "sweep base config: optim.lr=-1.0 is out of range"),
        ({"grid": {"loss.beta1": [True, False]}}, "grid loss.beta1: True is a boolean, not a number"),
        ({"grid": {"loss.beta1": [0.5, 0.5]}}, "grid loss.beta1: 0.5 appears twice"),
        ({"grid": {"loss.beta1": [0.1, 1e-1]}}, "grid loss.beta1: 0.1 appears twice"),
        ({"overrides": {"loss": "grpo"}}, "overrides: loss='grpo' conflicts with space ce_gppo"),
        ({"overrides": {"loss": {"name": "grpo"}}}, "overrides: loss='grpo' conflicts with space ce_gppo"),
        ({"overrides": {"loss.name": "dapo"}}, "overrides: loss='dapo' conflicts with space ce_gppo"),
        ({"overrides": {"loss.beta1": 0.3}}, "overrides: loss.beta1 is what the sweep varies"),
        ({"overrides": {"run.seed": 3}}, "overrides: run.seed is set by the sweep for every trial"),
        ({"study_name": ""}, "study_name is empty"),
        ({"study_name": "  "}, "study_name is empty"),
        ({"workers": 1000000}, "workers=1000000 is out of range; allowed: >= 1 and <= 64"),
        ({"pruner": "hyperband", "prune_every": 50, "overrides": {"run.steps": 2}}, "prune_every=50 is more than"),
        ({"pruner": "median", "prune_every": 3, "overrides": {"run.steps": 2}}, "the median pruner would never"),
        ({"pruner": "median", "prune_every": 1, "prune_warmup_steps": 2, "overrides": {"run.steps": 2}}, "no step"),
    ],
)
def test_bad_sweep_configs_are_one_line_errors(values, message):
    with pytest.raises(ConfigError) as error:
        load_sweep_config(None, values, {})
    assert message in str(error.value) and "\n" not in str(error.value)


def run_cli(argv, tmp_path, monkeypatch, capsys) -> tuple[int, str, str]:
    """`harness.cli.main` in this process (a python start-up per case costs ~10 s under load);
    argparse's own refusals and --help leave through SystemExit, as from the command line."""
    from harness.cli import main

    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--config", "nope.yaml"], "config file not found"),
        (["--n-trials", "0"], "n_trials=0 is out of range"),
        (["--storage", "garbage://x"], "--storage garbage://x cannot be opened"),
        (["--storage", "postgresql://nobody:pw@127.0.0.1:1/none"], "postgresql://nobody:***@127.0.0.1:1/none cannot"),
        (["--workers", "two"], "invalid int value"),
        (["--bogus.key", "1"], "unknown key 'bogus'"),
        (["--loss", "grpo"], "overrides: loss='grpo' conflicts with space ce_gppo"),
        (["--study-name", ""], "study_name is empty"),
    ],
)
def test_the_command_line_gives_one_line_errors(args, message, tmp_path, monkeypatch, capsys):
    code, _, err = run_cli(["sweep", "--output-dir", str(tmp_path / "s"), *args], tmp_path, monkeypatch, capsys)
    assert code == 2, err[-2000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err[-2000:]
    assert "pw@" not in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["s"])  # no store was created in the current folder


def test_sweep_help_documents_every_key(tmp_path, monkeypatch, capsys):
    code, out, _ = run_cli(["sweep", "--help"], tmp_path, monkeypatch, capsys)
    assert code == 0
    for key in (
        "study_name",
        "space",
        "grid",
        "seeds_per_trial",
        "pruner",
        "prune_every",
        "heartbeat_interval",
        "grace_period",
        "storage",
        "(steps)",
        "Seconds",
    ):
        assert key in out, key


def test_a_grid_point_the_loss_refuses_is_refused_before_any_trial(tmp_path):
    # each point is built as its trial would be: clip_cov_lb=2 above the overridden ub 1.5 used to fail as a
    # trial, and the sweep ended "finished" with no trial completed
    path = tmp_path / "cc5.yaml"
    path.write_text(
        "study_name: cc5\nspace: clip_cov\ngrid: {loss.clip_cov_lb: [0.5, 2.0]}\noverrides: {loss.clip_cov_ub: 1.5}\n"
    )
    with pytest.raises(ConfigError) as info:
        load_sweep_config(str(path), {}, {})
    assert str(info.value) == (
        "grid point loss.clip_cov_lb=2: sweep base config: loss clip_cov: need clip_cov_lb < clip_cov_ub, "
        "got 2.0 and 1.5"
    )
    path.write_text("study_name: cc5\nspace: clip_cov\ngrid: {loss.clip_cov_lb: [0.5, 1.0]}\n")
    assert load_sweep_config(str(path), {}, {}).grid_size == 2  # every point builds


def test_grid_points_walk_every_combination():
    assert grid_points({"a": [0.0, 1.0], "b": [5.0]}) == [{"a": 0.0, "b": 5.0}, {"a": 1.0, "b": 5.0}]


def test_an_override_section_that_contains_itself_is_one_line(tmp_path):
    path = tmp_path / "rec.yaml"
    path.write_text("study_name: rec\ngrid: {loss.beta1: [0]}\noverrides: &o {run.steps: 2, loss: *o}\n")
    with pytest.raises(ConfigError, match=r"'overrides.loss' contains itself \(a YAML alias"):
        load_sweep_config(str(path), {}, {})
