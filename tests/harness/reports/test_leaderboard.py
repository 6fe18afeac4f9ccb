"""harness.reports.leaderboard on fabricated MLflow runs: grouping, evaluation join, ranking, filters,
and the inputs that once broke it (a missing store, quotes in tags, old dates, NaN metrics).

MLflow's schema migrations take seconds on a fresh SQLite file: one empty store is made per module
and copied for every store a test needs."""

import datetime as dt
import hashlib
import math
import shutil

import mlflow
import pytest
from mlflow.entities import Metric, Param

from harness.cli import main
from harness.reports.leaderboard import Filters, leaderboard
from harness.tracking import check_store

GRPO, CE = {"loss.name": "grpo"}, {"loss.name": "ce_gppo", "loss.beta1": "0.5", "loss.beta2": "1.0"}


def fake_run(
    client,
    experiment,
    loss,
    seed,
    heldout,
    entropy,
    *,
    tags=None,
    suite=None,
    steps="600",
    extra=None,
    strict=None,
    eval_extra=None,
):
    run = client.create_run(experiment, tags=tags or {})
    run_id = run.info.run_id
    params = {**loss, "model.name": "tiny", "run.steps": steps, "run.seed": str(seed)}
    values = {
        "heldout_before_greedy_accuracy": 0.35,
        "heldout_after_greedy_accuracy": heldout,
        "stability/end_entropy": entropy,
        **(extra or {}),
    }
    client.log_batch(
        run_id,
        metrics=[Metric(k, v, 0, 0) for k, v in values.items()]
        + [Metric("entropy", entropy + 0.01 * step, 0, step) for step in range(3)],
        params=[Param(k, v) for k, v in params.items()],
    )
    client.set_terminated(run_id, "FINISHED")
    if suite is not None:  # an evaluation of this run
        evaluation = client.create_run(experiment, tags={"harness.train_run_id": run_id})
        metrics = {"eval/arith/acc/avg_at_4": suite, "eval/arith/acc/stderr": 0.02, "eval/suite_avg": suite}
        metrics |= eval_extra or {}
        if strict is not None:  # graded in both modes: the strict verdict's avg@k beside the lenient one
            metrics["eval/arith/acc_strict/avg_at_4"] = metrics["eval/suite_avg_strict"] = strict
        client.log_batch(evaluation.info.run_id, metrics=[Metric(k, v, 0, 0) for k, v in metrics.items()])
        client.set_terminated(evaluation.info.run_id, "FINISHED")
    return run_id


@pytest.fixture(scope="module")
def empty_store(tmp_path_factory):
    """The file of a fresh, empty MLflow store (copy it, never write to it)."""
    path = tmp_path_factory.mktemp("template") / "mlflow.db"
    check_store(f"sqlite:///{path}")
    return path


def new_store(empty_store, folder):
    """(uri, client) of a copy of the empty store in `folder`."""
    shutil.copy(empty_store, folder / "mlflow.db")
    uri = f"sqlite:///{folder}/mlflow.db"
    return uri, mlflow.MlflowClient(uri)


@pytest.fixture(scope="module")
def store(empty_store, tmp_path_factory):
    """Two seeds of GRPO and CE-GPPO (evaluated), one sweep trial, one unfinished run. Read only."""
    uri, client = new_store(empty_store, tmp_path_factory.mktemp("store"))
    train = client.create_experiment("train")
    sweeps = client.create_experiment("sweeps")
    for seed, (a, b) in enumerate([(0.60, 0.70), (0.64, 0.74)]):
        fake_run(client, train, GRPO, seed, a, 0.40, suite=a)
        fake_run(client, train, CE, seed, b, 0.45, suite=b)
    fake_run(client, sweeps, {**CE, "loss.beta1": "0.75"}, 0, 0.9, 0.30, tags={"sweep.study": "betas"})
    unfinished = client.create_run(train)
    client.log_param(unfinished.info.run_id, "loss.name", "dapo")
    return uri


def quiet(line):
    pass


def loss_of(label):
    return label.split(" ")[0].split("(")[0]


def test_groups_are_ranked_by_avg_with_seeds_and_sources(store, tmp_path):
    rows = leaderboard(store, Filters(), str(tmp_path / "board"), log=quiet)
    labels = [r.label for r in rows]
    assert labels == [
        "ce_gppo(beta1=0.75, beta2=1.0) · tiny · 600 steps [sweep betas]",  # held-out 0.9, no suite eval
        "ce_gppo(beta1=0.5, beta2=1.0) · tiny · 600 steps",
        "grpo · tiny · 600 steps",  # a loss without logged parameters: its name alone, not "grpo()"
    ]
    sweep_row, ce_row, grpo_row = rows
    assert ce_row.seeds == 2 and ce_row.cells["Avg"].mean == pytest.approx(0.72)
    assert ce_row.cells["arith"].mean == pytest.approx(0.72) and ce_row.cells["arith"].se == pytest.approx(
        0.02 / 2**0.5
    )
    assert grpo_row.cells["Avg"].sd == pytest.approx(((0.02**2) * 2) ** 0.5)
    assert "arith" not in sweep_row.cells and sweep_row.stability["end_entropy"] == pytest.approx(0.30)
    assert not any("dapo" in label for label in labels)  # unfinished runs are left out
    for name in ("leaderboard.md", "leaderboard.csv", "leaderboard.html"):
        assert (tmp_path / "board" / name).is_file()
    page = (tmp_path / "board" / "leaderboard.html").read_text()
    assert "data:image/png;base64" in page and "sweep betas" in page
    assert "non-finite" not in page


def test_filters_by_experiment_tag_and_date(store, tmp_path):
    only_sweeps = leaderboard(store, Filters(experiments=("sweeps",)), str(tmp_path / "a"), log=quiet)
    assert len(only_sweeps) == 1
    tagged = leaderboard(store, Filters(tags=(("sweep.study", "betas"),)), str(tmp_path / "b"), log=quiet)
    assert len(tagged) == 1
    future = Filters(since=dt.date.today() + dt.timedelta(days=1))
    lines = []
    assert leaderboard(store, future, str(tmp_path / "c"), log=lines.append) == []
    assert "no finished training run" in lines[0]
    assert len(leaderboard(store, Filters(profile="tiny"), str(tmp_path / "d"), log=quiet)) == 3
    assert leaderboard(store, Filters(profile="smol"), str(tmp_path / "e"), log=quiet) == []


@pytest.mark.parametrize("day", [dt.date(1, 1, 1), dt.date(1969, 12, 31), dt.date(1970, 1, 1)])
def test_a_date_before_1970_keeps_every_run(store, tmp_path, day):
    """Such a date has no timestamp (year 1 raised ValueError): every run started after it."""
    assert len(leaderboard(store, Filters(since=day), str(tmp_path / "o"), log=quiet)) == 3


def test_since_year_one_on_the_command_line(store, tmp_path, capsys):
    assert main(["leaderboard", "--tracking-uri", store, "--since", "0001-01-01", "--output-dir", str(tmp_path)]) == 0
    assert "3 groups" in capsys.readouterr().out


def _md5(path):
    return hashlib.md5(path.read_bytes()).hexdigest()


def test_a_missing_sqlite_store_is_refused_and_nothing_is_created(tmp_path, capsys, monkeypatch):
    """A typo in the path used to create the folder, a 1 MB MLflow database and a .lock."""
    missing = tmp_path / "nope" / "none.db"
    code = main(["leaderboard", "--tracking-uri", f"sqlite:///{missing}", "--output-dir", str(tmp_path / "o1")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"no tracking store at {missing}; nothing was created" in err
    assert list(tmp_path.iterdir()) == []
    monkeypatch.chdir(tmp_path)  # the default store, ./mlflow.db
    assert main(["leaderboard"]) == 2
    assert f"no tracking store at {tmp_path / 'mlflow.db'}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_empty_file_is_no_store_and_is_left_as_it_was(tmp_path, capsys):
    empty = tmp_path / "empty.db"
    empty.touch()
    assert main(["leaderboard", "--tracking-uri", f"sqlite:///{empty}", "--output-dir", str(tmp_path / "o")]) == 2
    assert "holds no MLflow tables" in capsys.readouterr().err
    assert empty.stat().st_size == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_an_optuna_database_is_refused_untouched(tmp_path, capsys):
    import sqlite3

    optuna_db = tmp_path / "optuna_copy.db"
    with sqlite3.connect(optuna_db) as db:  # the tables Optuna keeps (a real storage's schema)
        for table in ("studies", "trials", "version_info"):
            db.execute(f"create table {table} (x)")
        db.execute("create table alembic_version (version_num varchar(32) not null primary key)")
        db.execute("insert into alembic_version values ('v3.2.0.a')")
    before = _md5(optuna_db)
    code = main(["leaderboard", "--tracking-uri", f"sqlite:///{optuna_db}", "--output-dir", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "holds an Optuna study storage" in err and err.count("\n") == 1
    assert _md5(optuna_db) == before and sorted(p.name for p in tmp_path.iterdir()) == ["optuna_copy.db"]


QUOTED = {"a": "b' or '1'='1", "note": "it's", "say": 'he said "it\'s"', "we`ird": "1", 'k`"ey': "v"}


@pytest.fixture(scope="module")
def tagged_store(empty_store, tmp_path_factory):
    """One run per tag: the crafted values literally, and near misses that must not match."""
    uri, client = new_store(empty_store, tmp_path_factory.mktemp("tagged"))
    experiment = client.create_experiment("tagged")
    near = {"a": "b", "note": "its", "say": "he said", "we`ird": "2", 'k`"ey': "w"}
    for key in QUOTED:
        fake_run(client, experiment, {"loss.name": f"exact {key}"}, 0, 0.5, 0.4, tags={key: QUOTED[key]})
        fake_run(client, experiment, {"loss.name": f"near {key}"}, 0, 0.5, 0.4, tags={key: near[key]})
    fake_run(client, experiment, {"loss.name": "untagged"}, 0, 0.5, 0.4)
    return uri


@pytest.mark.parametrize("key", list(QUOTED))
def test_tags_with_quotes_and_backticks_match_exactly(tagged_store, tmp_path, capsys, key):
    """The values were pasted into MLflow's filter unquoted: a traceback, or a query they changed."""
    argv = ["leaderboard", "--tracking-uri", tagged_store, "--tag", f"{key}={QUOTED[key]}", "--output-dir"]
    assert main([*argv, str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1 finished training runs" in out and f"exact {key}" in out and "near" not in out


def test_nan_and_inf_metrics_are_left_out_and_never_ranked(empty_store, tmp_path):
    uri, client = new_store(empty_store, tmp_path)
    experiment = client.create_experiment("train")
    diverged = {"stability/max_ppo_kl": math.inf}
    fake_run(client, experiment, GRPO, 0, 0.60, 0.40, extra={"stability/max_ppo_kl": 0.01})
    fake_run(client, experiment, GRPO, 1, math.nan, math.nan, extra=diverged)  # same group
    fake_run(client, experiment, CE, 0, math.nan, math.nan, extra=diverged)  # a group of NaN only
    fake_run(client, experiment, {"loss.name": "dapo"}, 0, 0.40, 0.50)
    fake_run(client, experiment, {"loss.name": "gspo"}, 0, 0.70, 0.50, suite=math.nan)  # a NaN evaluation
    rows = leaderboard(uri, Filters(), str(tmp_path / "board"), log=quiet)
    by_name = {loss_of(r.label): r for r in rows}
    assert [loss_of(r.label) for r in rows] == ["gspo", "grpo", "dapo", "ce_gppo"]  # no Avg: last
    grpo, ce = by_name["grpo"], by_name["ce_gppo"]
    assert grpo.seeds == 2 and grpo.cells["Avg"].mean == pytest.approx(0.60) and grpo.cells["Avg"].seeds == 1
    assert grpo.stability == {"end_entropy": pytest.approx(0.40), "max_ppo_kl": pytest.approx(0.01)}
    assert ce.cells == {} and ce.stability == {}
    assert by_name["gspo"].cells["Avg"].mean == pytest.approx(0.70)  # the NaN suite average is left out
    markdown = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "10 non-finite metric values (NaN or inf) of 3 runs left out" in markdown
    table = [line.lower() for line in markdown.splitlines() if line.startswith("| ")]
    assert not any("nan" in line or "inf" in line or "e+307" in line or "e+308" in line for line in table)
    ce_line = next(line for line in markdown.splitlines() if line.startswith("| ce_gppo"))
    assert ce_line.count("–") == 10  # group, vs leader, Avg and the seven stability columns
    assert "10 non-finite metric values" in (tmp_path / "board" / "leaderboard.html").read_text()


def test_strict_beside_lenient_and_the_grader_audit_line(empty_store, tmp_path, monkeypatch, capsys):
    import harness.reports.leaderboard as board

    monkeypatch.setattr(board, "audit_line", lambda: "Grader audit: (the audit's line)")
    uri, client = new_store(empty_store, tmp_path)
    train = client.create_experiment("train")
    for seed, strict in enumerate((0.5, 0.6)):
        fake_run(client, train, GRPO, seed, 0.7, 0.4, suite=0.7, strict=strict)
    (row,) = leaderboard(uri, Filters(), str(tmp_path / "board"))
    assert row.cells["arith"].mean == pytest.approx(0.7) and row.cells["arith"].strict == pytest.approx(0.55)
    assert row.cells["Avg"].strict == pytest.approx(0.55)
    markdown = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "Grader audit: (the audit's line)" in markdown and "strict 55.0" in markdown
    assert "Grader audit: (the audit&#x27;s line)" in (tmp_path / "board" / "leaderboard.html").read_text()
    assert "Grader audit: (the audit's line)" in capsys.readouterr().out


def test_one_seed_shows_no_spread(store, tmp_path):
    """A row of one seed showed "(sd 0.0)", a measured-looking zero; two seeds keep their sd."""
    leaderboard(store, Filters(), str(tmp_path / "board"), log=quiet)
    lines = (tmp_path / "board" / "leaderboard.md").read_text().splitlines()
    sweep_line = next(line for line in lines if "[sweep betas]" in line)
    assert "(sd n/a (1 seed))" in sweep_line and "sd 0.0" not in sweep_line
    grpo_line = next(line for line in lines if line.startswith("| grpo · "))
    assert "(sd 2.8)" in grpo_line


def test_a_store_password_is_masked_on_the_terminal_and_in_every_file(store, tmp_path, monkeypatch):
    """A database store's password was printed and written into leaderboard.md and .html."""
    import harness.reports.leaderboard as board

    secret_uri = "postgresql://postgres:S3cretPW-rel3@127.0.0.1/rel3_pw"
    monkeypatch.setattr(board, "check_store", lambda uri, create: None)
    monkeypatch.setattr(board, "RetryingClient", lambda uri: mlflow.MlflowClient(store))  # the store behind it
    lines = []
    leaderboard(secret_uri, Filters(), str(tmp_path / "board"), log=lines.append)
    leaderboard(secret_uri, Filters(since=dt.date(2999, 1, 1)), str(tmp_path / "none"), log=lines.append)
    assert "no finished training run in postgresql://postgres:***@127.0.0.1/rel3_pw matches" in lines[-1]
    assert "finished training runs in postgresql://postgres:***@127.0.0.1/rel3_pw" in lines[0]
    for text in [*lines, *((tmp_path / "board" / name).read_text() for name in ("leaderboard.md", "leaderboard.html"))]:
        assert "S3cretPW" not in text


def test_symlinks_in_the_output_folder_are_replaced_not_written_through(store, tmp_path):
    folder, victims = tmp_path / "board", {}
    (folder / "figures").mkdir(parents=True)
    for name in ("leaderboard.md", "leaderboard.csv", "leaderboard.html", "figures/entropy.png"):
        victims[name] = tmp_path / f"victim_{name.replace('/', '_')}"
        victims[name].write_text("keep me")
        (folder / name).symlink_to(victims[name])
    leaderboard(store, Filters(), str(folder), log=quiet)
    for name, victim in victims.items():
        assert victim.read_text() == "keep me"
        assert not (folder / name).is_symlink() and (folder / name).stat().st_size > 100


def test_rows_from_different_environments_are_named_and_the_8020_rule_is_a_row(empty_store, tmp_path):
    uri, client = new_store(empty_store, tmp_path)
    train = client.create_experiment("train")
    cpu = {"env.device": "cpu", "env.dtype": "float32", "env.backend": "hf"}
    gpu = {"env.device": "cuda", "env.dtype": "bfloat16", "env.backend": "hf"}
    dapo = {"loss.name": "dapo"}
    fake_run(client, train, dapo, 0, 0.6, 0.4, tags=cpu, extra=None)
    fake_run(client, train, dapo, 1, 0.62, 0.4, tags=cpu)
    rule = {**dapo, "algo.top_entropy_quantile": "0.2"}
    fake_run(client, train, rule, 0, 0.7, 0.5, tags=gpu)
    fake_run(client, train, {**dapo, "algo.top_entropy_quantile": "None"}, 2, 0.61, 0.4, tags=cpu)  # the rule off
    lines = []
    rows = leaderboard(uri, Filters(), str(tmp_path / "board"), log=lines.append)
    labels = [r.label for r in rows]
    assert labels == ["dapo · tiny · 600 steps · top_entropy_quantile 0.2", "dapo · tiny · 600 steps"]
    assert rows[1].seeds == 3  # the runs with the rule off group with those logged before it existed
    text = (tmp_path / "board" / "leaderboard.md").read_text()
    assert (
        "rows ran in different environments: device cuda (dapo · tiny · 600 steps · top_entropy_quantile 0.2)" in text
    )
    assert "dtype bfloat16" in text and "float32 (dapo · tiny · 600 steps)" in text
    assert "rows ran in different environments" in lines[0]


def test_rows_in_one_environment_get_no_environment_line(empty_store, tmp_path):
    uri, client = new_store(empty_store, tmp_path)
    train = client.create_experiment("train")
    cpu = {"env.device": "cpu", "env.dtype": "float32"}
    fake_run(client, train, GRPO, 0, 0.6, 0.4, tags=cpu)
    fake_run(client, train, CE, 0, 0.7, 0.4, tags=cpu)
    leaderboard(uri, Filters(), str(tmp_path / "board"), log=quiet)
    assert "different environments" not in (tmp_path / "board" / "leaderboard.md").read_text()


def test_maj_at_k_and_pass_hat_k_columns(empty_store, tmp_path):
    uri, client = new_store(empty_store, tmp_path)
    train = client.create_experiment("train")
    for seed, (maj, hat) in enumerate([(0.70, 0.30), (0.80, 0.40)]):
        votes = {"eval/arith/acc/maj_at_4": maj, "eval/arith/acc/pass_hat_4": hat, "eval/arith/acc_strict/maj_at_4": 0}
        fake_run(client, train, GRPO, seed, 0.6, 0.4, suite=0.6, eval_extra=votes)
    fake_run(client, train, CE, 0, 0.5, 0.4)  # not evaluated
    leaderboard(uri, Filters(), str(tmp_path / "board"), log=quiet)
    csv_text = (tmp_path / "board" / "leaderboard.csv").read_text()
    header, *lines = csv_text.strip().splitlines()
    assert header.endswith("maj@k,pass^k,group,vs leader")
    grpo = next(line for line in lines if line.startswith("grpo"))
    assert ",75.0 @4,35.0 @4," in grpo  # means over the two seeds, the strict verdict's maj@k left out
    ce = next(line for line in lines if "ce_gppo" in line)
    assert ",–,–," in ce
