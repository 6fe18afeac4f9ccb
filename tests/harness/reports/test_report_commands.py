"""harness.reports.commands: each report command is one module that registers itself; the CLI adds them
in their order, with their help and arguments, and refuses an argument a command does not take."""

import pytest

from harness.cli import main
from harness.common.errors import ConfigError
from harness.reports.commands import REPORT_COMMANDS, ReportCommand, report_command, report_commands


def test_the_report_commands_register_themselves_in_help_order():
    assert [c.name for c in report_commands()] == ["table1", "leaderboard", "plan", "grader-audit", "recipe-audit"]
    assert all(c.help and c.help.strip().endswith(".") for c in report_commands())


def test_harness_help_lists_every_command_in_its_old_order(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # a command and its help on one line
    with pytest.raises(SystemExit):
        main(["--help"])
    lines = capsys.readouterr().out.splitlines()
    commands = [line.split()[0] for line in lines if line.startswith("    ") and not line.startswith("     ")]
    expected = ["models", "train", "eval", "table1", "leaderboard", "plan", "grader-audit", "recipe-audit", "sweep"]
    assert commands == expected


def test_a_new_module_is_a_new_command_with_its_arguments_and_help(monkeypatch, capsys):
    """What one more module of the folder does: `harness echo --times 2` runs its function."""
    ran = []

    def arguments(parser):
        parser.add_argument("--times", type=int, default=1, help="how often")

    def echo_command(args) -> int:
        """Say hello a number of times."""
        ran.append(args.times)
        return 0

    monkeypatch.setitem(REPORT_COMMANDS, "echo", ReportCommand("echo", 99, echo_command, arguments))
    assert main(["echo", "--times", "2"]) == 0 and ran == [2]
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "Say hello a number of times." in capsys.readouterr().out
    assert main(["echo", "--loud"]) == 2
    assert capsys.readouterr().err == "harness echo: error: unexpected argument '--loud'; see harness echo --help\n"


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="'plan' is registered twice"):
        report_command("plan", 1, lambda parser: None)(lambda args: 0)


def test_an_unexpected_argument_is_refused_before_the_command_runs():
    calls = []
    command = ReportCommand("x", 1, lambda args: calls.append(args) or 0, lambda parser: None)
    with pytest.raises(ConfigError, match=r"^unexpected argument 'y'; see harness x --help$"):
        command(None, ["y"])
    assert calls == []


def test_table1_defaults_to_the_countdown_testbed_on_cpu_and_the_paper_with_a_gpu(monkeypatch):
    import torch

    from harness.profiles import get_profile
    from harness.reports.commands.table1_command import default_table_profile

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert default_table_profile() == "countdown"
    # the budget r22 chose for 4 points (docs/countdown-testbed.md): 8 seeds x 1 sample on 3,470 problems
    profile = get_profile("countdown")
    assert (profile.seeds, profile.k, profile.suite) == (8, 1, "countdown_addsub")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert default_table_profile() == "paper"
