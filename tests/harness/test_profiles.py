"""harness.profiles: one registry of profiles; every name check and every help string that lists profiles
comes from it."""

import pytest

from harness.cli import main
from harness.common.errors import ConfigError
from harness.profiles import CONFIG_DIR, PROFILES, get_profile, profiles_help
from harness.reports.stats.seed_planner import plan
from harness.schema import load_train_config
from sweeps.config import load_sweep_config


def test_every_profile_has_its_yaml_and_every_yaml_is_a_profile():
    assert sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")) == sorted(PROFILES)
    assert all(p.config_file.is_file() for p in PROFILES.values())


@pytest.mark.parametrize("key", ["profile", "--profile"])
def test_an_unknown_name_is_one_line_naming_the_flag_and_the_valid_names(key):
    with pytest.raises(ConfigError) as info:
        get_profile("papr", key)
    assert str(info.value) == f"{key}='papr' is not known; valid: tiny, smol, paper, paper-text, countdown"
    assert get_profile("paper-text").name == "paper-text"


@pytest.mark.parametrize(
    "check",
    [
        lambda: load_train_config("papr", None, {}),
        lambda: plan("papr", 2.5, None, None),
        lambda: load_sweep_config(None, {"profile": "papr"}, {}),
    ],
    ids=["train config", "seed planner", "sweep config"],
)
def test_every_name_check_is_the_registrys(check):
    with pytest.raises(
        ConfigError, match=r"profile='papr' is not known; valid: tiny, smol, paper, paper-text, countdown$"
    ):
        check()


@pytest.mark.parametrize("command", ["train", "table1", "leaderboard", "plan", "recipe-audit"])
def test_every_help_that_takes_a_profile_lists_every_profile(command, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # one line per option: argparse would break "paper-text" at its hyphen
    with pytest.raises(SystemExit):
        main([command, "--help"])
    line = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("--profile"))
    assert all(name in line for name in PROFILES), line


def test_the_help_line_gives_each_profile_its_summary():
    assert profiles_help().startswith("tiny (CPU, minutes), smol (")
    assert all(f"{p.name} ({p.summary})" in profiles_help() for p in PROFILES.values())
