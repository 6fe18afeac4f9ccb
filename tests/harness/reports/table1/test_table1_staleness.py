"""`harness table1 --rows staleness`: the four K rows beside table1's, their jobs train with
rollout.staleness, and every row without overrides keeps the identity (hashes, tags, folders) its
earlier runs were stored under, so that those runs are still found and reused."""

from dataclasses import replace

import pytest
import yaml

from harness.common.errors import ConfigError
from harness.profiles import PROFILES
from harness.reports.table1.reproduce import Job, job_configs, reproduce, train_config, train_hash, write_job_config
from harness.reports.table1.rows import ROWS, select_rows

STALENESS = ["GRPO K=1", "GRPO K=4", "CE-GPPO(0.5,1) K=1", "CE-GPPO(0.5,1) K=4"]
URI = "sqlite:////nonexistent/m.db"  # never opened: a config only names it
BASE = ("the-base-model", "base-key", "the-base-model (no warm start)")

# table.hash of rows before rollout.staleness existed (commit d9631ab), (profile, row, --steps) -> hash;
# the tiny ones as of issue 32's warm start (a new schedule: a new starting policy, so new runs)
BEFORE = {
    ("tiny", "GRPO", None): "59717a8fa03d",
    ("tiny", "GRPO", 4): "6aa454793abd",
    ("tiny", "DAPO", None): "e9fb763f7216",
    ("tiny", "CE-GPPO(0.5,1)", None): "394d546342d8",
    ("tiny", "CE-GPPO(0.5,1)", 4): "2c47368010d6",
    ("smol", "GRPO", None): "675a4814a7f1",
    ("paper", "GRPO", None): "56a70da25ae8",
    ("paper-text", "GRPO", 4): "5495f31a54be",
}


def row(label):
    return next(r for r in ROWS if r.label == label)


def untagged_hash(config):
    """train_hash of a job's config before its table.* tags were added (what table.hash is taken of)."""
    return train_hash(replace(config, run=replace(config.run, tags={})))


def k0_row(label):
    """GRPO K=1 -> GRPO: the same loss without overrides."""
    return row(label.split(" K=")[0])


def test_the_staleness_group_adds_its_four_rows_to_table1s():
    table1 = [r.label for r in select_rows("table1")]
    assert [r.label for r in select_rows("staleness")] == [*table1, *STALENESS]
    assert [(r.staleness, r.loss) for r in select_rows("staleness")[-4:]] == [
        (1, {"name": "grpo"}),
        (4, {"name": "grpo"}),
        (1, {"name": "ce_gppo", "beta1": 0.5, "beta2": 1.0}),
        (4, {"name": "ce_gppo", "beta1": 0.5, "beta2": 1.0}),
    ]
    assert not any(r.group == "staleness" for r in select_rows("all"))  # `all`: the paper's groups, as before
    assert len(select_rows("all,staleness")) == len(ROWS)
    assert [r.label for r in select_rows("GRPO K=4")] == [*table1, "GRPO K=4"]
    assert all(r.staleness == 0 for r in ROWS if r.group != "staleness")
    # outside the staleness group only the 80/20 row trains with an override (its rule on top of DAPO)
    others = {r.label: r.train_overrides for r in ROWS if r.group != "staleness" and r.train_overrides}
    assert others == {"DAPO+80/20": {"algo.top_entropy_quantile": 0.2}}


@pytest.mark.parametrize("label,k", [("GRPO K=1", 1), ("CE-GPPO(0.5,1) K=4", 4)])
def test_a_staleness_rows_job_trains_with_rollout_staleness_and_records_it(label, k, tmp_path):
    config = train_config(PROFILES["tiny"], Job(row(label), 0), None, tmp_path, URI)
    synchronous = train_config(PROFILES["tiny"], Job(k0_row(label), 0), None, tmp_path, URI)
    assert config.rollout.staleness == k and synchronous.rollout.staleness == 0
    assert config.loss == synchronous.loss and config.run.steps == synchronous.run.steps  # only K differs
    tags = config.run.tags
    assert tags["table.row"] == label and tags["table.overrides"] == f'{{"rollout.staleness": {k}}}'
    assert tags["table.hash"] == untagged_hash(config) != synchronous.run.tags["table.hash"]
    assert config.run.output_dir != synchronous.run.output_dir and tags["table.hash"] in config.run.output_dir
    written = yaml.safe_load(write_job_config(config, URI).read_text())  # what the child trains from
    assert written["rollout"]["staleness"] == k and written["run"]["tags"]["table.overrides"] == tags["table.overrides"]
    _, evaluation = job_configs(Job(row(label), 0), PROFILES["tiny"], None, tmp_path, URI, BASE)
    _, before = job_configs(Job(k0_row(label), 0), PROFILES["tiny"], None, tmp_path, URI, BASE)
    assert evaluation.tags["table.eval_hash"] != before.tags["table.eval_hash"]


@pytest.mark.parametrize("profile,label,steps", sorted(BEFORE, key=str))
def test_rows_without_overrides_hash_as_before_the_staleness_knob(profile, label, steps, tmp_path):
    config = train_config(PROFILES[profile], Job(row(label), 0), steps, tmp_path, URI)
    assert config.run.tags["table.hash"] == BEFORE[profile, label, steps]
    assert set(config.run.tags) == {"table.profile", "table.row", "table.seed", "table.hash"}  # no new tag
    assert config.run.output_dir.endswith(f"-seed0-{BEFORE[profile, label, steps]}")


def test_a_rows_evaluation_keeps_its_hash_too(tmp_path):
    """Its hash as of the fixed draw (the benchmarks' versions in it) and the warm start that stops at its target
    (1ab0e7e5cd04 / 49a13b3b0ce0 before both)."""
    for seed, key, eval_key in ((0, "394d546342d8", "c5483d78d412"), (3, "be5aee50bd24", "d5c3007f5ab8")):
        train, evaluation = job_configs(Job(row("CE-GPPO(0.5,1)"), seed), PROFILES["tiny"], None, tmp_path, URI, BASE)
        assert train.run.tags["table.hash"] == key and evaluation.tags["table.eval_hash"] == eval_key


def test_the_new_keys_count_in_the_hash_once_they_leave_their_default(tmp_path):
    """A row that sets any of the asynchronous knobs is another job; at the default they are not hashed."""
    profile = PROFILES["tiny"]
    plain = train_config(profile, Job(row("GRPO"), 0), None, tmp_path, URI)
    stale = train_config(profile, Job(row("GRPO K=1"), 0), None, tmp_path, URI)
    capped = replace(stale, rollout=replace(stale.rollout, behaviour_cap=3.0))
    assert untagged_hash(plain) == plain.run.tags["table.hash"] and untagged_hash(stale) == stale.run.tags["table.hash"]
    assert len({untagged_hash(plain), untagged_hash(stale), untagged_hash(capped)}) == 3


def test_a_staleness_row_on_an_fsdp_profile_is_refused_naming_the_row(tmp_path):
    with pytest.raises(ConfigError, match="not fsdp"):
        train_config(PROFILES["paper"], Job(row("GRPO K=1"), 0), None, tmp_path, URI)
    rows = select_rows("staleness")
    uri = f"sqlite:///{tmp_path}/m.db"
    with pytest.raises(ConfigError, match=r"^row GRPO K=1 on the paper profile: rollout.staleness >= 1 .*not fsdp"):
        reproduce("paper", rows, 1, 4, 1, str(tmp_path / "out"), uri, log=lambda line: None)


def test_the_leaderboard_keeps_asynchronous_runs_apart_and_synchronous_ones_with_older_runs():
    """A run logged before the knob (no rollout.staleness param) and one at 0 share a group; K=1 has its own."""
    from types import SimpleNamespace

    from harness.reports.leaderboard import leaderboard_rows

    def fake(run_id, heldout, **params):
        metrics = {"heldout_before_greedy_accuracy": 0.3, "heldout_after_greedy_accuracy": heldout}
        params = {"loss.name": "grpo", "model.name": "tiny", "run.steps": "600", **params}
        data = SimpleNamespace(params=params, tags={"table.profile": "tiny"}, metrics=metrics)
        return SimpleNamespace(info=SimpleNamespace(run_id=run_id), data=data)

    runs = [
        fake("old", 0.5),
        fake("new", 0.7, **{"rollout.staleness": "0"}),
        fake("k1", 0.4, **{"rollout.staleness": "1"}),
    ]
    table, *_ = leaderboard_rows(runs, {})
    assert [(r.label, r.seeds) for r in table] == [
        ("grpo · tiny · 600 steps [table1 tiny]", 2),
        ("grpo · tiny · 600 steps · staleness 1 [table1 tiny]", 1),
    ]
    assert table[0].cells["Avg"].mean == pytest.approx(0.6)
