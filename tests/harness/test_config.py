"""Config loading: layering, validation errors (message and exit status), every shipped YAML."""

from pathlib import Path

import pytest

from harness.common.errors import ConfigError
from harness.profiles import CONFIG_DIR
from harness.schema import TrainConfig, load_train_config


@pytest.mark.parametrize("path", sorted(CONFIG_DIR.glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_yaml_loads(path):
    config = load_train_config(config_file=str(path))
    assert isinstance(config, TrainConfig)


def test_layers_apply_in_order(tmp_path):
    file = tmp_path / "c.yaml"
    file.write_text("optim:\n  lr: 2.0e-5\nrun:\n  steps: 7\n")
    config = load_train_config("tiny", str(file), {"run.steps": 9, "loss.beta1": 0.75})
    assert config.optim.lr == 2e-5  # from the file
    assert config.run.steps == 9  # the flag wins over the file
    assert config.loss == {"name": "ce_gppo", "beta1": 0.75, "beta2": 1.0}
    assert config.model.name == "tiny"  # from the profile


def test_choosing_another_loss_drops_the_old_loss_parameters():
    config = load_train_config("tiny", None, {"loss": "grpo", "loss.eps_high": 0.3})
    assert config.loss == {"name": "grpo", "eps_high": 0.3}


def test_int_promotes_to_float_but_not_the_reverse():
    assert load_train_config("tiny", None, {"optim.lr": 1}).optim.lr == 1.0
    with pytest.raises(ConfigError, match=r"run.steps=1.5 has the wrong type; allowed: int"):
        load_train_config("tiny", None, {"run.steps": 1.5})


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"optim.lr": -1.0}, "optim.lr=-1.0 is out of range; allowed: > 0"),
        ({"rollout.top_p": 1.5}, "rollout.top_p=1.5 is out of range; allowed: > 0 and <= 1"),
        ({"optim.bogus": 1}, "unknown key 'optim.bogus'"),
        ({"model.dtype": "int8"}, "model.dtype='int8' is not allowed; allowed: one of 'float32'"),
        ({"run.steps": "many"}, "run.steps='many' has the wrong type; allowed: int"),
        ({"loss": "nope"}, "loss: unknown loss 'nope'; valid losses: "),
        ({"loss.beta1": -0.5}, "loss ce_gppo: beta1"),
        ({"loss.gamma": 1}, "loss ce_gppo: "),
        (
            {"loss": "grpo", "loss.schedule.kind": "switch", "loss.schedule.beta1": 0.5},
            "loss 'grpo' cannot schedule beta1",
        ),
        ({"loss.schedule.kind": "switch", "loss.schedule.eps_low": 0.1}, "cannot schedule eps_low"),
        (
            {"loss.schedule.kind": "sometimes", "loss.schedule.beta1": 0.5},
            "loss.schedule: kind='sometimes' is not allowed",
        ),
        ({"loss.schedule.kind": "linear", "loss.schedule.beta1": 0.5}, "step of a 'linear' schedule"),
        ({"loss.schedule.kind": "switch"}, "needs a target value"),
        ({"rollout.backend": "sglang"}, "rollout.backend='sglang' is not allowed; allowed: one of 'hf', 'vllm'"),
        ({"rollout.temperature": float("inf")}, "rollout.temperature=inf is not a finite number"),
        ({"optim.lr": float("nan")}, "optim.lr=nan is not a finite number"),
        ({"run.output_dir": ""}, "run.output_dir='' is empty"),
        ({"algo.agg_mode": "mean"}, "allowed: one of 'token_mean', 'seq_mean_token_mean'"),
        ({"task.source": "jsonl"}, "task.path is required"),
        # float keys feed float32 tensors: 1e300 passes a float64 range check but is inf there
        (
            {"rollout.staleness": 1, "rollout.behaviour_cap": 1e300},
            "rollout.behaviour_cap=1e+300 is out of float32's safe range",
        ),
        ({"algo.positive_nll_coef": 1e300}, "algo.positive_nll_coef=1e+300 is out of float32's safe range"),
        ({"reward.correct": -1e35}, "reward.correct=-1e+35 is out of float32's safe range"),
        ({"optim.lr": 1e-40}, "optim.lr=1e-40 is out of float32's safe range"),
        ({"loss": "sapo", "loss.tau_pos": 1e300}, "loss sapo: tau_pos=1e+300 is out of float32's safe range"),
        (
            {"rollout.mismatch": "seq"},
            "rollout.mismatch='seq' is not allowed; allowed: one of 'none', 'token_truncate'",
        ),
        ({"rollout.mismatch_high": 0.5}, "rollout.mismatch_high=0.5 is out of range; allowed: >= 1"),
        ({"rollout.mismatch": "icepop", "rollout.tis_cap": 2.0}, "keep one (tis_cap C is mismatch=token_truncate"),
        (
            {"rollout.mismatch": "icepop", "rollout.staleness": 1, "rollout.staleness_correction": "behaviour"},
            "use staleness_correction=decoupled",
        ),
        ({"algo.top_entropy_quantile": 0.0}, "algo.top_entropy_quantile=0.0 is out of range; allowed: > 0 and <= 1"),
        ({"loss": "gppo_erc", "loss.entropy_mask_low": 1.2}, "entropy_mask_low must be in [0, 1)"),
        (
            {"task.source": "countdown", "task.level": 3, "task.countdown_scheme": "mul"},
            "task.countdown_scheme='mul' is not allowed; allowed: one of 'full', 'addsub'",
        ),
    ],
)
def test_bad_values_name_key_value_and_allowed(overrides, message):
    with pytest.raises(ConfigError) as info:
        load_train_config("tiny", None, overrides)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_the_countdown_schemes_a_config_names_are_the_generators():
    """schema.py names them by hand (loading a config imports no benchmark): they must stay the registry's."""
    from typing import get_args, get_type_hints

    from benchmarks.families.countdown import DEFAULT_SCHEME, SCHEMES
    from harness.schema import TaskConfig

    assert get_args(get_type_hints(TaskConfig)["countdown_scheme"]) == tuple(SCHEMES)
    assert TaskConfig().countdown_scheme == DEFAULT_SCHEME


def test_bad_yaml_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("optim: [1, 2\n")
    with pytest.raises(ConfigError, match="is not valid YAML"):
        load_train_config(None, str(bad))
    with pytest.raises(ConfigError, match="config file not found"):
        load_train_config(None, str(tmp_path / "missing.yaml"))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "--profile", "tiny", "--optim.lr", "-1"], "optim.lr=-1 is out of range"),
        (["train", "--profile", "tiny", "--loss", "bogus"], "unknown loss 'bogus'"),
        (["train", "--profile", "tiny", "--loss.beta2", "abc"], "beta2"),
        (["train", "--config", "/no/such/file.yaml"], "config file not found"),
        (["train", "--profile", "tiny", "--run.steps"], "--run.steps needs a value"),
        (["eval", "--k", "0"], "k=0 is out of range; allowed: >= 1"),
        (["eval", "--temperature", "hot"], "temperature='hot' has the wrong type"),
        (["nosuchcommand"], "invalid choice"),
    ],
)
def test_cli_errors_are_one_line_with_exit_status_2(argv, message, tmp_path, monkeypatch, capsys):
    """`harness.cli.main` in this process (a python start-up per case took ~10 s); argparse's own
    refusals leave through SystemExit, as they do from the command line."""
    from harness.cli import main

    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exit:
        code = exit.code
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert message in lines[0]
    assert "Traceback" not in err
    assert not (Path(tmp_path) / "runs").exists()  # nothing was started


@pytest.mark.parametrize(
    "spelling", ["1e-5", "1E-5", "1.0e-5", "0.00001", "+1e-05", ".1e-4", "+.1E-4", ".00001", "10e-6", "0.1e-4", "1.e-5"]
)
def test_every_float_spelling_is_a_float(spelling, tmp_path):
    from harness.cli import split_dotted

    assert load_train_config("tiny", None, split_dotted(["--optim.lr", spelling])).optim.lr == 1e-5
    file = tmp_path / "c.yaml"
    file.write_text(f"optim:\n  lr: {spelling}\nloss:\n  beta2: 1e9\n")
    config = load_train_config("tiny", str(file), {})
    assert config.optim.lr == 1e-5 and config.loss["beta2"] == 1e9
    assert load_train_config("tiny", None, split_dotted(["--loss.beta2", "1e9"])).loss["beta2"] == 1e9


@pytest.mark.parametrize(
    "spelling, value", [(".5e3", 500.0), ("-.5", -0.5), ("+.5E+3", 500.0), ("5.", 5.0), ("1_000.5", 1000.5)]
)
def test_yaml_1_2_floats_read_as_floats(spelling, value):
    from harness.dataclass_config import parse_value

    assert parse_value(spelling) == value and isinstance(parse_value(spelling), float)


def test_plain_words_and_integers_keep_their_types():
    from harness.dataclass_config import parse_value

    assert parse_value("1") == 1 and isinstance(parse_value("1"), int)
    assert parse_value("e5") == "e5" and parse_value("1e") == "1e" and parse_value("true") is True


@pytest.mark.parametrize("text", ["run:\n", "run:\n  # nothing here\n", "optim: 5\n", "run:\n  steps: 4\nalgo:\n"])
def test_a_section_without_keys_in_a_file_is_refused(text, tmp_path):
    file = tmp_path / "c.yaml"
    file.write_text(text)
    with pytest.raises(ConfigError, match=r"c.yaml: '(run|optim|algo)' is") as info:
        load_train_config("tiny", str(file), {"run.steps": 5})
    assert "\n" not in str(info.value)


def test_schedule_lives_next_to_the_betas_and_builds_a_beta_schedule():
    from harness.schema import loss_and_schedule

    config = load_train_config(
        "tiny", None, {"loss.beta1": 0.0, "loss.schedule": {"kind": "switch", "step": 3, "beta1": 0.5}}
    )
    loss, schedule = loss_and_schedule(config.loss)
    assert (loss.beta1, loss.beta2) == (0.0, 1.0)
    assert [tuple(schedule.values_at(s).values()) for s in (0, 2, 3, 9)] == [(0, 1), (0, 1), (0.5, 1), (0.5, 1)]
    # a wrapped CE-GPPO takes the same schedule
    wrapped = load_train_config(
        "tiny",
        None,
        {"loss": "entropy_reg", "loss.base": "ce_gppo", "loss.schedule": {"kind": "linear", "step": 4, "beta2": 0.0}},
    )
    _, ramp = loss_and_schedule(wrapped.loss)
    assert ramp.values_at(2) == {"beta1": 0.5, "beta2": 0.5}
    assert loss_and_schedule(load_train_config("tiny", None, {}).loss)[1] is None


@pytest.mark.parametrize("tags", [{"a": {"b": 1}}, {"a": [1, 2]}, {"a": None}, {None: "x"}, {"a": {}}])
def test_a_text_mapping_refuses_nested_values_and_null(tags):
    """dict[str, str] (MLflow tags): a mapping or list inside would be stored as a Python repr."""
    from harness.dataclass_config import build_config
    from harness.schema import EvalConfig

    for build in (
        lambda: load_train_config("tiny", None, {"run.tags": tags}),
        lambda: build_config(EvalConfig, {"tags": tags}),
    ):
        with pytest.raises(ConfigError, match="has the wrong type; allowed: text, a number or a boolean") as info:
            build()
        assert "\n" not in str(info.value) and "tags" in str(info.value)


def test_a_text_mapping_takes_numbers_and_booleans_as_text():
    config = load_train_config("tiny", None, {"run.tags": {"seed": 1, "lr": 1e-5, "on": True, 7: "x"}})
    assert config.run.tags == {"seed": "1", "lr": "1e-05", "on": "True", "7": "x"}
    loss = load_train_config("tiny", None, {"loss.beta1": 0.75}).loss  # dict[str, Any]: values as they are
    assert loss["beta1"] == 0.75


@pytest.mark.parametrize("typed", ["sqlite:////tmp/run ☃ #1/ml flow.db", "#1", " spaced ", "postgresql://u:p@db/x #1"])
def test_command_line_text_is_kept_as_typed(typed):
    """A command line has no comments: YAML would cut " #..." off a path, read "#1" as null."""
    from harness.cli import split_dotted
    from harness.dataclass_config import parse_value

    assert parse_value(typed) == typed
    assert parse_value("'quoted #1'") == "quoted #1" and parse_value('"x"') == "x" and parse_value("~") is None
    config = load_train_config("tiny", None, split_dotted(["--run.artifact_root", typed]))
    assert config.run.artifact_root == typed


@pytest.mark.parametrize(
    "text, key",
    [
        ("loss: &l {name: ce_gppo, schedule: *l}\n", "loss.schedule"),
        ("run: &r {tags: *r}\n", "run.tags"),
        ("run: {tags: &t [a, *t]}\n", "run.tags.1"),
    ],
)
def test_a_yaml_section_that_contains_itself_is_one_line(text, key, tmp_path):
    path = tmp_path / "rec.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_train_config("tiny", str(path), {})
    assert str(info.value).startswith(f"config file {path}: '{key}' contains itself")


def test_shared_aliases_are_walked_once_not_expanded(tmp_path):
    # a "billion laughs": 9 levels of 9 aliases each is 9**9 leaves if expanded; the check visits 10 nodes
    lines = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    path = tmp_path / "laughs.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match="unknown key 'a0'"):  # refused as an unknown key, quickly
        load_train_config("tiny", str(path), {})
