"""A non-finite loss skips the update, is logged, and stops the run after max_bad_steps in a row."""

import json

import pytest
import torch

from harness.models import load_model
from harness.module import RLModule
from harness.train import TrainingStopped, train
from harness.train_config import load_train_config


def test_nan_loss_is_skipped_then_stops(tmp_path, monkeypatch):
    original = RLModule.compute_loss
    snapshot = {}

    def poisoned(self, loss_fn, batch):
        out = original(self, loss_fn, batch)
        if self.current_epoch >= 1:
            if not snapshot:  # the weights after step 0, before any poisoned update
                snapshot.update({k: v.detach().clone() for k, v in self.policy.state_dict().items()})
            out.per_token.data.fill_(float("nan"))
        return out

    monkeypatch.setattr(RLModule, "compute_loss", poisoned)
    out = tmp_path / "r"
    config = load_train_config(
        "tiny",
        None,
        {
            "run.steps": 8,
            "run.max_bad_steps": 3,
            "run.output_dir": str(out),
            "run.tracking_uri": f"sqlite:///{tmp_path}/m.db",
            "rollout.prompts_per_step": 8,
            "algo.mini_batches": 2,
        },
    )
    with pytest.raises(TrainingStopped, match="3 consecutive steps"):
        train(config)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "stopped" and "non-finite" in summary["stop_reason"]
    assert [h["skipped_updates"] for h in summary["history"]] == [0, 2, 2, 2]
    # skipped updates leave the weights untouched: the saved model equals the step-0 weights
    final, _ = load_model(str(out / "model"))
    for name, value in final.state_dict().items():
        assert torch.equal(value, snapshot[name]), name
