"""`harness table1` end to end on the tiny profile with very short runs: a killed invocation that
resumes, the report, a second invocation that finds everything in MLflow; every profile's rows
validate without a GPU. What table1 does around its jobs (a failed job, Ctrl-C and SIGTERM, an
unusable or busy output folder, --jobs, a password in the tracking URI) is in test_table1_jobs.py,
with fake children."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import mlflow
import pytest

from harness.common.errors import ConfigError
from harness.profiles import PROFILES
from harness.reports.table1.reproduce import Job, train_config
from harness.reports.table1.rows import ROWS, select_rows
from harness.schema import load_train_config


def table1(out: Path, uri: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "harness.cli",
        "table1",
        "--profile",
        "tiny",
        "--seeds",
        "1",
        "--jobs",
        "2",
        "--limit",  # 40 of the 500 held-out problems: the evaluations are most of a tiny run's time
        "40",
        "--output-dir",
        str(out),
        "--tracking-uri",
        uri,
        *extra,
    ]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A table1 SIGKILLed (its whole process group) once GRPO has a checkpoint, then the same command
    again: (scratch folder, store URI, the second run's stdout, the output folder). The output folder's
    name has a space, '?' and ' #' (which YAML would read as a comment)."""
    root = tmp_path_factory.mktemp("table1")
    uri, out = f"sqlite:///{root}/mlflow.db", root / "t1 a?b #c"
    args = table1(out, uri, "--steps", "4")  # a checkpoint every step
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 600
    while not list(out.glob("runs/GRPO-seed0-*/checkpoints/*.ckpt")):  # the first training has a checkpoint
        assert proc.poll() is None and time.time() < deadline, proc.stderr.read().decode()[-2000:]
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    again = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-3000:]
    return root, uri, again.stdout, out


def test_the_report_has_table_claims_figures_and_page(finished):
    root, uri, stdout, out = finished
    markdown = (out / "table1.md").read_text()
    for label in ("base", "GRPO", "DAPO", "CE-GPPO(0.5,1)", "CE-GPPO(0.75,1)"):
        assert f"| {label} | 1 |" in markdown, label
    assert "Missing" not in markdown
    # every row (the base row through its evaluation's tag) names the one cached warm start it started from
    assert "Starting policy of every row and seed: warm start " in markdown.split("| algorithm |")[0]
    assert "## The paper's claims on this profile" in markdown and "inside noise" in markdown
    assert "larger beta2 raises entropy (beta2 1 vs 0.5): not run" in markdown
    assert {p.name for p in (out / "figures").iterdir()} >= {"fig2_entropy.png", "fig4_kl_grad_norm.png"}
    page = (out / "table1.html").read_text()
    assert page.count("data:image/png;base64") >= 2 and "http" not in page.split("<body>")[1]
    csv_lines = (out / "table1.csv").read_text().splitlines()
    assert csv_lines[0].startswith("algorithm,seeds,arith_l2_compact_mean") and len(csv_lines) == 6
    assert "[  5/5]" in stdout and "report:" in stdout
    client = mlflow.MlflowClient(uri)
    report = client.search_runs(
        [client.get_experiment_by_name("ce-gppo-table1").experiment_id], "tags.`table.report` = 'tiny'"
    )
    assert {a.path for a in client.list_artifacts(report[0].info.run_id)} >= {"table1.md", "table1.html", "figures"}


def test_a_killed_invocation_resumes_its_interrupted_run(finished):
    _, uri, stdout, out = finished
    assert "GRPO seed 0: resumed" in stdout
    client = mlflow.MlflowClient(uri)
    names = ("ce-gppo-table1", "ce-gppo-table1-eval")
    experiments = [client.get_experiment_by_name(name).experiment_id for name in names]
    grpo = client.search_runs(experiments[:1], "tags.`table.row` = 'GRPO'")
    assert len(grpo) == 1 and grpo[0].info.status == "FINISHED"  # the killed run was continued, not replaced
    assert not client.search_runs(experiments, "attributes.status = 'RUNNING'")  # the children closed theirs
    assert len(list((out / "logs").glob("GRPO-seed0-*.train-eval.*.log"))) == 2  # one log per process


def test_a_second_invocation_redoes_nothing(finished):
    root, uri, _, out = finished
    started = time.monotonic()
    again = subprocess.run(table1(out, uri, "--steps", "4"), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stdout.count("already in MLflow") == 5 and "trained" not in again.stdout
    client = mlflow.MlflowClient(uri)
    runs = client.search_runs(
        [client.get_experiment_by_name("ce-gppo-table1").experiment_id], "tags.`table.row` = 'GRPO'"
    )
    assert len(runs) == 1  # not trained twice
    assert time.monotonic() - started < 120


def test_another_output_folder_evaluates_the_models_where_they_were_trained(finished):
    """Trainings found in the store are not retrained; a new evaluation (here another --limit) reads each
    model from the folder its run recorded, not from the new --output-dir, where there is none."""
    root, uri, _, out = finished
    other = root / "second folder"
    again = subprocess.run(
        table1(other, uri, "--steps", "4", "--limit", "20"), capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, (again.stdout + again.stderr)[-3000:]
    assert "failed" not in again.stdout and again.stdout.count(": evaluated in") == 5, again.stdout
    assert not list(other.glob("runs/*/model"))  # nothing trained there
    assert (other / "table1.md").is_file() and "| GRPO | 1 |" in (other / "table1.md").read_text()


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_row_of_every_profile_validates_without_a_gpu(profile, tmp_path):
    fsdp = load_train_config(PROFILES[profile].name, None, {}).run.strategy == "fsdp"
    for row in ROWS:
        if row.loss is None:
            continue
        if row.staleness and fsdp:  # asynchronous rollouts need auto or ddp: refused, in one line
            with pytest.raises(ConfigError, match="not fsdp"):
                train_config(PROFILES[profile], Job(row, 0), None, tmp_path, f"sqlite:///{tmp_path}/m.db")
            continue
        config = train_config(PROFILES[profile], Job(row, 0), None, tmp_path, f"sqlite:///{tmp_path}/m.db")
        assert config.rollout.staleness == row.staleness
        assert config.algo.top_entropy_quantile == (0.2 if row.label == "DAPO+80/20" else None)
        assert config.loss["name"] == row.loss["name"] and config.run.tags["table.row"] == row.label
    assert [r.label for r in select_rows("table1")][:2] == ["base", "GRPO"]
    entropy_rows = [r.label for r in select_rows("entropy")]
    assert {"GRPO-ERC", "GPPO-ERC", "DAPO+80/20"} <= set(entropy_rows)
    assert len(select_rows("all,staleness")) == len(ROWS)  # `all` is the paper's groups, staleness named
    chosen = [r.label for r in select_rows("CE-GPPO(0.5,0.5), GSPO,CE-GPPO(0->0.5)")]  # labels hold commas
    assert chosen[-3:] == ["GSPO", "CE-GPPO(0.5,0.5)", "CE-GPPO(0->0.5)"] and chosen[:5] == [
        r.label for r in select_rows("table1")
    ]
    with pytest.raises(ValueError, match="unknown 'bogus'"):
        select_rows("bogus")
