"""The report sub-commands of `harness` (table1, leaderboard, plan, grader-audit, recipe-audit): one
module each here, registering itself with `report_command`.

    def arguments(parser): parser.add_argument("--profile", help=...)

    @report_command("my-report", order=60, arguments=arguments)
    def my_report_command(args) -> int:
        '''One line: what the command does (its `harness --help` line).'''
        ...
        return 0

`harness.cli` imports every module of this folder (`report_commands`), adds a sub-parser per command
in `order` (their place in `harness --help`) and calls the function with the parsed arguments. A
command takes no argument beyond its own: an unexpected one is a one-line error naming it. Heavy
imports (MLflow, torch, Lightning) go inside the function, so that `harness --help` stays fast.
May import everything `harness.reports` may. See docs/design.md.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from harness.common.errors import ConfigError


@dataclass(frozen=True)
class ReportCommand:
    name: str
    order: int  # place in `harness --help`, after the core commands (models, train, eval)
    run: Callable[[argparse.Namespace], int]  # its docstring is the command's help line
    arguments: Callable[[argparse.ArgumentParser], None]  # adds the command's options to its parser

    @property
    def help(self) -> str | None:
        return self.run.__doc__

    def __call__(self, args: argparse.Namespace, extra: list[str]) -> int:
        if extra:
            raise ConfigError(f"unexpected argument '{extra[0]}'; see harness {self.name} --help")
        return self.run(args)


REPORT_COMMANDS: dict[str, ReportCommand] = {}


def report_command(name: str, order: int, arguments: Callable[[argparse.ArgumentParser], None]):
    """Register the decorated function as `harness <name>`."""

    def register(run: Callable[[argparse.Namespace], int]):
        if name in REPORT_COMMANDS:
            raise ValueError(f"report command {name!r} is registered twice")
        REPORT_COMMANDS[name] = ReportCommand(name, order, run, arguments)
        return run

    return register


def report_commands() -> list[ReportCommand]:
    """Every report command of this folder, in `harness --help` order."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return sorted(REPORT_COMMANDS.values(), key=lambda command: command.order)
