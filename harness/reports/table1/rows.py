"""What `harness table1` trains and evaluates: the rows of the paper's tables (the profiles' Table 1
settings are in harness.profiles).

Rows (label -> loss section), in groups that `--rows` selects (`all`: every group but staleness):

    table1   base (the starting policy, evaluated only), GRPO, DAPO, CE-GPPO(0.5,1), CE-GPPO(0.75,1)
    table2   CISPO, GSPO
    entropy  GRPO+entropy(0.001), GRPO+entropy(0.003), GPPO, and the entropy-control rivals Clip-Cov,
             KL-Cov (arXiv 2505.22617), GMPO (geo_mean), SAPO, ERC's GRPO-ERC and GPPO-ERC (arXiv 2512.05591,
             the released recipes' settings: algorithms.erc) and DAPO+80/20 (arXiv 2506.01939: DAPO with
             algo.top_entropy_quantile 0.2)
    betas    CE-GPPO at (0.5,0.5), (0.5,0.75), (0,1), (0.25,1), (1,1): with table1's two, both axes
             of the paper's beta grid through (0.5, 1)
    switch   CE-GPPO(0->0.5): beta1 0 until half-way, then 0.5 (the paper's stage switch, Figure 6)
    staleness  GRPO K=1, GRPO K=4, CE-GPPO(0.5,1) K=1, CE-GPPO(0.5,1) K=4: asynchronous rollouts
             (rollout.staleness K, see harness.training.async_rollout) against table1's GRPO and CE-GPPO(0.5,1),
             which are the K=0 rows; on the same seeds, reported in the Staleness section

Every trained row uses the profile's config and differs only in its loss section (DAPO is its
loss, clip-higher with token-mean; dynamic sampling and overlong shaping stay as the profile sets
them for every row) and in its `train_overrides`, dotted config keys on top of the profile's (the
staleness rows' rollout.staleness, DAPO+80/20's algo.top_entropy_quantile; every other row has none).
The overrides are part of the resolved config, so of the row's hash (harness.reports.table1.reproduce.train_hash).
The staleness rows need a profile whose strategy is auto or ddp (tiny, smol), not fsdp (the paper profiles).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Row:
    label: str
    group: str
    loss: dict | None  # None: the base model, evaluated without training
    train_overrides: dict = field(default_factory=dict)  # dotted config keys on top of the profile's

    @property
    def staleness(self) -> int:
        """rollout.staleness K of the row's training (0: synchronous, the profile's default)."""
        return int(self.train_overrides.get("rollout.staleness", 0))

    def loss_at(self, steps: int) -> dict | None:
        """The loss section; the stage switch happens half-way through the run."""
        if self.loss is None or "schedule" not in self.loss:
            return self.loss
        return {**self.loss, "schedule": {**self.loss["schedule"], "step": max(steps // 2, 1)}}


def _ce(beta1: float, beta2: float) -> dict:
    return {"name": "ce_gppo", "beta1": beta1, "beta2": beta2}


ROWS = (
    Row("base", "table1", None),
    Row("GRPO", "table1", {"name": "grpo"}),
    Row("DAPO", "table1", {"name": "dapo"}),
    Row("CE-GPPO(0.5,1)", "table1", _ce(0.5, 1.0)),
    Row("CE-GPPO(0.75,1)", "table1", _ce(0.75, 1.0)),
    Row("CISPO", "table2", {"name": "cispo"}),
    Row("GSPO", "table2", {"name": "gspo"}),
    Row("GRPO+entropy(0.001)", "entropy", {"name": "entropy_reg", "base": "grpo", "coef": 0.001}),
    Row("GRPO+entropy(0.003)", "entropy", {"name": "entropy_reg", "base": "grpo", "coef": 0.003}),
    Row("GPPO", "entropy", {"name": "gppo"}),
    Row("Clip-Cov", "entropy", {"name": "clip_cov"}),
    Row("KL-Cov", "entropy", {"name": "kl_cov"}),
    Row("GMPO", "entropy", {"name": "geo_mean"}),
    Row("SAPO", "entropy", {"name": "sapo"}),
    Row("GRPO-ERC", "entropy", {"name": "grpo_erc"}),
    Row("GPPO-ERC", "entropy", {"name": "gppo_erc"}),
    Row("DAPO+80/20", "entropy", {"name": "dapo"}, {"algo.top_entropy_quantile": 0.2}),
    Row("CE-GPPO(0.5,0.5)", "betas", _ce(0.5, 0.5)),
    Row("CE-GPPO(0.5,0.75)", "betas", _ce(0.5, 0.75)),
    Row("CE-GPPO(0,1)", "betas", _ce(0.0, 1.0)),
    Row("CE-GPPO(0.25,1)", "betas", _ce(0.25, 1.0)),
    Row("CE-GPPO(1,1)", "betas", _ce(1.0, 1.0)),
    Row("CE-GPPO(0->0.5)", "switch", {**_ce(0.0, 1.0), "schedule": {"kind": "switch", "beta1": 0.5}}),
    *(
        Row(f"{label} K={k}", "staleness", dict(loss), {"rollout.staleness": k})
        for label, loss in (("GRPO", {"name": "grpo"}), ("CE-GPPO(0.5,1)", _ce(0.5, 1.0)))
        for k in (1, 4)
    ),
)
PAPER_GROUPS = ("table1", "table2", "entropy", "betas", "switch")  # `all`: the paper's tables and ablations
GROUPS = (*PAPER_GROUPS, "staleness")


def select_rows(spec: str) -> list[Row]:
    """`table1` (always included), plus groups or labels, comma-separated; `all` for the paper's groups
    (every group but staleness, which is named: `all,staleness` is everything; it cannot run on the fsdp
    profiles). Commas inside a label's parentheses belong to the label: `betas,CE-GPPO(0.5,0.5)` is two parts."""
    wanted = {"table1"}
    for part in (p.strip() for p in re.split(r",(?![^()]*\))", spec)):
        if part == "all":
            wanted.update(PAPER_GROUPS)
        elif part in GROUPS or any(r.label == part for r in ROWS):
            wanted.add(part)
        else:
            labels = ", ".join(r.label for r in ROWS)
            raise ValueError(f"--rows: unknown {part!r}; groups: {', '.join(GROUPS)}, all; rows: {labels}")
    return [r for r in ROWS if r.group in wanted or r.label in wanted]


def config_hash(payload: dict) -> str:
    """A short, stable hash of what decides a run's result (the resolved config, the eval settings)."""
    return hashlib.sha1(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:12]
