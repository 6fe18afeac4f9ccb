"""The `harness` command: help lists the sub-commands, `models` lists the built-ins."""

import shutil
import subprocess
import sys

import pytest
from safetensors.torch import load_file, save_file

from harness.cli import main
from harness.models import builtin_path


def run(*argv):
    return subprocess.run([sys.executable, "-m", "harness.cli", *argv], capture_output=True, text=True)


def test_help_lists_subcommands():
    proc = run("--help")
    assert proc.returncode == 0
    for command in ("models", "train", "eval", "table1", "leaderboard", "plan"):
        assert command in proc.stdout


def test_train_help_documents_every_key_with_units():
    proc = run("train", "--help")
    assert proc.returncode == 0
    assert "--optim.lr" in proc.stdout and "Peak learning rate" in proc.stdout
    assert "--rollout.max_new_tokens" in proc.stdout and "(tokens)" in proc.stdout


NOTHING_HEAVY = """
import sys
from harness.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(sorted(m for m in ("torch", "mlflow", "transformers", "optuna") if m in sys.modules))
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["train", "--help"],
        ["models"],
        ["leaderboard", "--tracking-uri", "sqlite:///MISSING/x.db"],
        ["plan", "--profile", "paper", "--difference", "150"],
        ["train", "--profile", "tiny", "--loss", "nope"],
        ["eval", "--model", "tiny", "--suite", "nope"],
        ["eval", "--model", "MISSING/model"],
    ],
)
def test_commands_that_answer_at_once_import_no_heavy_library(argv, tmp_path):
    """--help and `train --help` imported torch to list the losses (2-3.6 s of CPU), `models` de-quantised
    SmolLM2 to count it (8-28 s), the leaderboard imported MLflow before finding no store (3.5-12.6 s);
    refusing a bad --difference, loss name or suite imported numpy / torch first.
    The CPU times themselves are printed by tests/perf/bench_cli.py."""
    argv = [a.replace("MISSING", str(tmp_path / "missing")) for a in argv]
    proc = subprocess.run([sys.executable, "-c", NOTHING_HEAVY, *argv], capture_output=True, text=True)
    assert proc.stdout.splitlines()[-1] == "[]", proc.stdout[-300:] + proc.stderr[-300:]


def test_models_lists_builtins_with_parameter_counts():
    proc = run("models")
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line.split()[1] for line in proc.stdout.splitlines()[1:]}
    assert set(rows) == {"tiny", "tiny-countdown", "smollm2-135m-instruct"}
    assert rows["tiny-countdown"] == "1,041,920"
    tiny = int(rows["tiny"].replace(",", ""))
    smol = int(rows["smollm2-135m-instruct"].replace(",", ""))
    assert 100_000 <= tiny <= 2_000_000
    assert 130_000_000 <= smol <= 140_000_000
    assert "Converting" not in proc.stderr and "Writing" not in proc.stderr  # listing builds and converts nothing


def test_train_ends_with_a_summary_and_stays_quiet(tmp_path):
    args = [
        "train",
        "--profile",
        "tiny",
        "--run.steps",
        "2",
        "--rollout.prompts_per_step",
        "4",
        "--algo.mini_batches",
        "1",
        "--output-dir",
        str(tmp_path / "run"),
        "--tracking-uri",
        f"sqlite:///{tmp_path}/mlflow.db",
    ]
    proc = subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "harness train: completed: 2 steps of ce_gppo (seed 0)" in out
    for line in (
        "held-out accuracy   greedy",
        "entropy             end",
        "max ppo_kl",
        "skipped updates 0",
        str(tmp_path / "run" / "summary.json"),
        "MLflow run",
        f"mlflow ui --backend-store-uri sqlite:///{tmp_path}/mlflow.db",
    ):
        assert line in out, line
    noise = ("GPU available", "TPU available", "litlogger", "INFO mlflow", "Trainer.fit", "Warning", "warn")
    assert not [n for n in noise if n in proc.stderr + out], proc.stderr

    verbose = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.cli",
            *args[:-4],
            "--output-dir",
            str(tmp_path / "v"),
            "--tracking-uri",
            f"sqlite:///{tmp_path}/mlflow2.db",
            "--verbose",
        ],
        capture_output=True,
        text=True,
    )
    assert verbose.returncode == 0 and "GPU available" in verbose.stderr + verbose.stdout


def test_eval_prints_the_table_and_where_the_files_are(tmp_path):
    proc = run(
        "eval",
        "--model",
        "tiny",
        "--suite",
        "arith_l1_compact,amc23",
        "--k",
        "2",
        "--limit",
        "3",
        "--max-new-tokens",
        "4",
        "--output-dir",
        str(tmp_path / "eval"),
        "--tracking-uri",
        "none",
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    header = next(line for line in lines if line.startswith("benchmark"))
    assert "avg@2 ± se (%)" in header and "pass@2 (%)" in header
    assert any(line.startswith("arith_l1_compact") for line in lines)
    assert any(line.startswith("suite mean") for line in lines)
    assert f"results: {tmp_path / 'eval' / 'results.json'}" in proc.stdout
    assert "grading" not in proc.stdout.replace("grading_", "")  # no bar left saying it is grading


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "--profile", "tiny", "--output-dir", ""], "run.output_dir='' is empty"),
        (["train", "--profile", "tiny", "--output-dir", "afile"], "is a file, not a directory"),
        (["train", "--profile", "tiny", "--tracking-uri", "garbage://x"], "is not supported"),
        (["train", "--profile", "tiny", "--tracking-uri", "::::"], "is not supported"),
        (["train", "--profile", "tiny", "--tracking-uri", "http://127.0.0.1:9"], "no MLflow server answers"),
        (["train", "--profile", "tiny", "--rollout.temperature", ".inf"], "is not a finite number"),
        (["train", "--profile", "tiny", "--rollout.backend", "vllm"], "rollout.backend=vllm needs vLLM"),
        (["train", "--profile", "tiny", "--rollout.backend", "sglang"], "rollout.backend='sglang' is not allowed"),
        (["train", "--profile", "tiny", "--run.devices", "3"], "prompts_per_step=64 is not divisible by the 3"),
        (["eval", "--backend", "vllm", "--tracking-uri", "none"], "--backend=vllm needs vLLM"),
        (["train", "--profile", "tiny", "--config", "bare.yaml"], "'run' is empty"),
        (
            ["train", "--profile", "tiny", "--task.source", "jsonl", "--task.path", "bad.jsonl"],
            "bad.jsonl:1: not UTF-8",
        ),
        (["eval", "--suite", ""], "no benchmark or suite named"),
        (["eval", "--suite", "math,"], "empty benchmark or suite name"),
        (["eval", "--lm-eval", "nosuchtask", "--tracking-uri", "none"], "unknown lm-eval task"),
        (["eval", "--model", "broken", "--tracking-uri", "none"], "config.json is not valid JSON"),
        (["eval", "--model", "tiny", "--output-dir", "afile", "--tracking-uri", "none"], "is a file"),
        (
            ["train", "--profile", "tiny", "--output-dir", "blocked"],
            "checkpoints folder='blocked/checkpoints' is a file",
        ),
        (["train", "--profile", "tiny", "--output-dir", "held"], "held/summary.json is not a file but harness train"),
        (
            ["eval", "--output-dir", "held", "--tracking-uri", "none"],
            "held/samples.jsonl is not a file but harness eval",
        ),
        (["eval", "--model", "junk_weights", "--tracking-uri", "none"], "model 'junk_weights' cannot be loaded"),
        (["eval", "--model", "cut_weights", "--tracking-uri", "none"], "model 'cut_weights' cannot be loaded"),
        (["eval", "--model", "partial_weights", "--tracking-uri", "none"], "weights lack 9 of the model's tensors"),
        (["models", "--bogus"], "takes no options"),
        (
            ["table1", "--profile", "tiny", "--baseline", "PPO", "--output-dir", "t1"],
            "--baseline='PPO' is not a row of this table; allowed: base, GRPO, DAPO, CE-GPPO(0.5,1), CE-GPPO(0.75,1)",
        ),
        (
            ["plan", "--profile", "tiny", "--difference", "-2"],
            "--difference=-2 is out of range; allowed: (0, 100] points",
        ),
    ],
)
def test_user_mistakes_are_one_line_errors(argv, message, tmp_path, monkeypatch, capsys):
    """In this process (`python -m harness.cli` runs the same `main`; test_help_lists_subcommands
    starts it for real): a start-up per case cost ~10 s of imports, and any exception other than the
    one-line refusal would reach pytest and fail the test, as a traceback would have."""
    (tmp_path / "afile").write_text("not a folder")
    (tmp_path / "bare.yaml").write_text("run:\n")
    (tmp_path / "bad.jsonl").write_bytes(b'{"problem": "\xff\xfe", "answer": "1"}\n')
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{oops")
    (tmp_path / "blocked").mkdir()
    for folder in ("held/summary.json", "held/samples.jsonl"):  # folders where the commands write files
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "blocked" / "checkpoints").write_text("a file where the checkpoints folder goes")
    for name in ("junk_weights", "cut_weights", "partial_weights"):  # the tiny model with damaged weights
        shutil.copytree(builtin_path("tiny"), tmp_path / name)
    weights = load_file(tmp_path / "partial_weights" / "model.safetensors")
    kept = {key: tensor for key, tensor in weights.items() if ".layers.1." not in key}  # one layer gone
    save_file(kept, tmp_path / "partial_weights" / "model.safetensors", metadata={"format": "pt"})
    (tmp_path / "junk_weights" / "model.safetensors").write_text("junk")
    with open(tmp_path / "cut_weights" / "model.safetensors", "r+b") as weights:
        weights.truncate(5000)
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err[-2000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err[-2000:]
    assert "Traceback" not in err
    assert not (tmp_path / "mlflow.db").exists()  # nothing was tracked


READ_ONLY = """
set -e
mount -t tmpfs -o ro tmpfs "$1"
shift
exec "$@"
"""


@pytest.mark.parametrize(
    "command, where",
    [
        (["train", "--profile", "tiny", "--output-dir", "runs/r"], "runs/r/checkpoints"),
        (["train", "--profile", "tiny", "--output-dir", "runs"], "runs"),
        (["eval", "--model", "tiny", "--output-dir", "runs/ev", "--tracking-uri", "none"], "runs/ev"),
    ],
)
def test_a_read_only_place_is_refused_before_any_work(command, where, tmp_path):
    """A read-only mount (root ignores permission bits, so a real one, in a private mount namespace)."""
    (tmp_path / where).mkdir(parents=True)
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace here (unshare: {probe.stderr.decode().strip()[:100]})")
    argv = [sys.executable, "-m", "harness.cli", *command]
    shell = ["unshare", "-m", "--propagation", "private", "sh", "-c", READ_ONLY, "sh", str(tmp_path / where), *argv]
    proc = subprocess.run(shell, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Read-only file system" in lines[0] and where in lines[0], proc.stderr[-2000:]


def test_every_refusal_is_masked_whoever_wrote_it(monkeypatch, capsys):
    """cli.main masks the password of any URL in a UserError or a path error, once for every command."""
    from harness import cli
    from harness.common.errors import ConfigError

    def refuse(args, extra):
        raise ConfigError("cannot reach mysql+pymysql://rel2u:S3cretPW42@127.0.0.1/db: refused")

    def refuse_path(args, extra):
        raise PermissionError(13, "Permission denied", "postgresql://u:S3cretPW42@h/x")

    for command in (refuse, refuse_path):
        monkeypatch.setitem(cli.COMMANDS, "models", command)
        assert main(["models"]) == 2
        err = capsys.readouterr().err
        assert "S3cretPW42" not in err and ":***@" in err, err
