"""The `harness` command: help lists the sub-commands, `models` lists the built-ins."""

import subprocess
import sys


def run(*argv):
    return subprocess.run([sys.executable, "-m", "harness.cli", *argv], capture_output=True, text=True)


def test_help_lists_subcommands():
    proc = run("--help")
    assert proc.returncode == 0
    for command in ("models", "train", "eval"):
        assert command in proc.stdout


def test_train_help_documents_every_key_with_units():
    proc = run("train", "--help")
    assert proc.returncode == 0
    assert "--optim.lr" in proc.stdout and "Peak learning rate" in proc.stdout
    assert "--rollout.max_new_tokens" in proc.stdout and "(tokens)" in proc.stdout


def test_models_lists_builtins_with_parameter_counts():
    proc = run("models")
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line.split()[1] for line in proc.stdout.splitlines()[1:]}
    assert set(rows) == {"tiny", "smollm2-135m-instruct"}
    tiny = int(rows["tiny"].replace(",", ""))
    smol = int(rows["smollm2-135m-instruct"].replace(",", ""))
    assert 100_000 <= tiny <= 2_000_000
    assert 130_000_000 <= smol <= 140_000_000
