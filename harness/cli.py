"""The `harness` command line, the project's one entry point: each sub-command maps to one plain function.

    harness models                                   # built-in models and parameter counts
    harness train --profile tiny --loss ce_gppo --loss.beta1 0.75
    harness eval --model tiny --suite math --k 2 --limit 5
    harness grader-audit --show-disagreements        # the math grader against a careful reading
    harness plan --profile paper --difference 2.5    # seeds x samples to detect 2.5 points
    harness recipe-audit --profile paper             # the paper's text vs the official script vs ours
    harness train --profile paper --print-config     # the resolved config, nothing run
    harness sweep --config sweeps/configs/beta_grid.yaml   # added by the sweeps package

The report commands (table1, leaderboard, plan, grader-audit, recipe-audit) register themselves,
one module each, in `harness.reports.commands`. Packages built on the harness add sub-commands
without the harness importing them (imports point sweeps -> harness): each names a function in the
entry-point group `harness.commands` of pyproject.toml; called with the sub-parsers and the common
options, it adds its parser and returns the plain function that runs the command.

User mistakes (unknown key, wrong type, out-of-range value, a missing or malformed file, an
unreachable tracking store) print one line and exit with status 2; nothing already written is
touched. A run that stops on non-finite losses exits 1 with the reason. Output is quiet by
default (our own lines and progress only); `--verbose` shows the libraries' logs and warnings.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
import typing
import warnings
from collections.abc import Callable

from harness.common.errors import ConfigError, UserError
from harness.common.processes import forget_termination, interrupt_on_sigterm
from harness.common.uris import DEFAULT_TRACKING_URI, redact
from harness.dataclass_config import build_config, field_docs, help_rows, parse_value
from harness.profiles import profile_names, profiles_help
from harness.reports.commands import report_commands

UNSET = object()  # an eval flag not given (None would hide an explicit empty value such as --suite "")
# Lightning sets "lightning" and "lightning.pytorch" to INFO when it is imported (after this runs:
# the CLI imports it only for commands that need it); its "GPU available", tips and "`Trainer.fit`
# stopped" lines go through the rank_zero loggers, whose level it leaves alone.
NOISY_LOGGERS = (
    "lightning",
    "lightning.pytorch",
    "lightning.fabric",
    "lightning.pytorch.utilities.rank_zero",
    "lightning.fabric.utilities.rank_zero",
    "mlflow",
    "alembic",
    "urllib3",
    "transformers",
)


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad command line as a single line and exit status 2."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def quiet_libraries(verbose: bool) -> None:
    """Hide the libraries' INFO lines, tips and deprecation warnings unless --verbose."""
    if verbose:
        return
    os.environ.setdefault("MLFLOW_LOGGING_LEVEL", "WARNING")  # MLflow resets its logger's level on import
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    for category in (DeprecationWarning, FutureWarning, PendingDeprecationWarning):
        warnings.filterwarnings("ignore", category=category)
    warnings.filterwarnings("ignore", module=r"(lightning|mlflow|transformers|torch|sqlalchemy|lm_eval)\b.*")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # read when transformers is imported
    if "transformers" in sys.modules:  # already imported (a caller that imported it first)
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()


def split_dotted(extra: list[str]) -> dict[str, typing.Any]:
    """['--loss.beta1', '0.75', '--optim.lr=1e-5'] -> {'loss.beta1': 0.75, 'optim.lr': 1e-05}."""
    overrides: dict[str, typing.Any] = {}
    i = 0
    while i < len(extra):
        token = extra[i]
        if not token.startswith("--") or len(token) == 2:
            raise ConfigError(f"unexpected argument '{token}'; overrides look like --section.key VALUE")
        key, eq, value = token[2:].partition("=")
        if not eq:
            if i + 1 >= len(extra) or extra[i + 1].startswith("--"):
                raise ConfigError(f"--{key} needs a value")
            value = extra[i + 1]
            i += 1
        overrides[key.replace("-", "_")] = parse_value(value)
        i += 1
    return overrides


def models_command(args: argparse.Namespace, extra: list[str]) -> int:
    """List the built-in models with their parameter counts."""
    from harness.models import BUILTIN_MODELS  # each states its count: nothing is loaded or built to list them

    if extra:
        raise ConfigError(f"unexpected argument '{extra[0]}'; harness models takes no options")
    print(f"{'name':<24}{'parameters':>14}  description")
    for name, spec in BUILTIN_MODELS.items():
        print(f"{name:<24}{spec.parameters:>14,}  {spec.description}")
    return 0


def train_command(args: argparse.Namespace, extra: list[str]) -> int:
    """Train a policy with RL (profile -> --config file -> dotted overrides)."""
    from harness.schema import load_train_config

    overrides = split_dotted(extra)
    if args.loss is not None:
        overrides["loss"] = args.loss
    if args.output_dir is not None:
        overrides["run.output_dir"] = args.output_dir
    if args.tracking_uri is not None:
        overrides["run.tracking_uri"] = args.tracking_uri
    config = load_train_config(args.profile, args.config, overrides)
    if args.print_config:
        import yaml

        from harness.training.run_dir import shown_config

        print(yaml.safe_dump(shown_config(config), sort_keys=False), end="")
        return 0
    from harness.training.train import TrainingStopped, train

    try:
        train(config, resume=args.resume)
    except TrainingStopped as stopped:
        print(f"harness train: {stopped}", file=sys.stderr)
        return 1
    return 0


def eval_command(args: argparse.Namespace, extra: list[str]) -> int:
    """Evaluate a model on benchmark suites (or an lm-eval task)."""
    from harness.schema import EvalConfig

    if extra:
        raise ConfigError(f"unexpected argument '{extra[0]}'; see harness eval --help")
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(EvalConfig)}
    config = build_config(EvalConfig, {k: v for k, v in values.items() if v is not UNSET})
    from harness.models import resolve_model_path

    resolve_model_path(config.model)  # a missing model folder is refused before torch is imported
    from harness.evaluate import evaluate_model  # torch and the engines, once the config is known to be good

    evaluate_model(config)
    return 0


def add_flags(parser: argparse.ArgumentParser, cls: type) -> None:
    """One --flag per field of a flat config dataclass; values are validated by build_config."""
    docs = field_docs(cls)
    for fld in dataclasses.fields(cls):
        default = fld.default if fld.default is not dataclasses.MISSING else fld.default_factory()
        parser.add_argument(
            "--" + fld.name.replace("_", "-"),
            dest=fld.name,
            type=parse_value,
            default=UNSET,
            help=f"{docs.get(fld.name, '')} (default: {default!r})",
        )


def train_help() -> str:
    from harness.schema import TrainConfig

    rows = "\n".join(f"  --{key:<32} {doc} [default {default}]" for key, default, doc in help_rows(TrainConfig))
    return (
        f"profiles: {profile_names()}. Every config key is a flag (--section.key VALUE):\n{rows}\n"
        "  --loss.PARAM VALUE               a hyper-parameter of the chosen loss (e.g. --loss.beta1 0.75)\n"
        "  --loss.schedule.kind KIND        schedule of the loss's schedulable coefficients (CE-GPPO: beta1,\n"
        "                                   beta2): constant, switch (at step) or linear (up to step)\n"
        "  --loss.schedule.step N           step of the switch / last step of the linear ramp (RL steps)\n"
        "  --loss.schedule.beta1 VALUE      value after the switch / at the end of the ramp (also beta2)"
    )


def loss_names() -> tuple[str, ...]:
    """The losses `--loss` accepts, for its help line: the built-ins by name (algorithms.names: importing the
    losses would import torch, seconds of CPU), and any other loss a package has registered already."""
    from algorithms.names import LOSS_NAMES

    registry = sys.modules.get("algorithms.loss_registry")
    others = tuple(n for n in registry.registered_losses() if n not in LOSS_NAMES) if registry else ()
    return LOSS_NAMES + others


def build_parser() -> OneLineParser:
    from harness.schema import EvalConfig

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--verbose", action="store_true", help="show the libraries' logs and warnings too")
    parser = OneLineParser(prog="harness", description="Compare RL policy losses for language models.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    commands.required = True

    commands.add_parser("models", help=models_command.__doc__, parents=[common])

    train = commands.add_parser(
        "train",
        help=train_command.__doc__,
        epilog=train_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    train.add_argument("--profile", help=f"defaults: {profiles_help()}")
    train.add_argument("--config", help="YAML file refining the profile")
    train.add_argument("--loss", help=f"policy loss name ({', '.join(loss_names())})")
    train.add_argument("--output-dir", help="run directory (checkpoints, summary.json, final model)")
    train.add_argument("--tracking-uri", help=f"MLflow tracking URI (default {DEFAULT_TRACKING_URI})")
    train.add_argument("--resume", action="store_true", help="continue from the last checkpoint in --output-dir")
    train.add_argument(
        "--print-config", action="store_true", help="print the resolved config as YAML and exit (nothing is run)"
    )

    evaluate = commands.add_parser("eval", help=eval_command.__doc__, parents=[common])
    add_flags(evaluate, EvalConfig)

    for command in report_commands():  # harness.reports.commands: one module each
        command.arguments(commands.add_parser(command.name, help=command.help, parents=[common]))
        COMMANDS[command.name] = command
    add_plugin_commands(commands, common)
    return parser


COMMANDS: dict[str, Callable[[argparse.Namespace, list[str]], int]] = {
    "models": models_command,
    "train": train_command,
    "eval": eval_command,
}  # and the report commands and plug-ins, added by build_parser


def add_plugin_commands(commands, common: argparse.ArgumentParser) -> None:
    """Sub-commands registered by other packages in the entry-point group `harness.commands`."""
    from importlib.metadata import entry_points

    for entry in sorted(entry_points(group="harness.commands"), key=lambda e: e.name):
        COMMANDS[entry.name] = entry.load()(commands, common)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    quiet_libraries(args.verbose)
    interrupt_on_sigterm()  # SIGTERM ends a command the way Ctrl-C does: runs are closed as KILLED
    try:
        return COMMANDS[args.command](args, extra)
    except (UserError, FileNotFoundError, NotADirectoryError) as err:
        # every message is masked once here, whoever wrote it: a store URL may carry a password
        print(f"harness {args.command}: error: {redact(str(err))}", file=sys.stderr)
        return 2
    except OSError as err:
        if err.filename is None:  # not about a path the user chose: a real fault, keep the traceback
            raise
        # A file-system refusal on a named path (read-only, full, no permission, a file in the way):
        # the user's environment, not a bug. Runs were already closed as FAILED by their context.
        where, why = redact(str(err.filename)), redact(str(err.strerror or err))
        print(f"harness {args.command}: error: cannot use {where}: {why}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"harness {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        forget_termination()


if __name__ == "__main__":
    sys.exit(main())
