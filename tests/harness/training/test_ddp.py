"""Data-parallel training (Lightning DDP, 2 CPU processes, gloo) equals single-process training."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from harness.models import load_model

SCRIPT = Path(__file__).with_name("ddp_update_script.py")


def run(out: Path, devices: int, agg: str) -> dict:
    proc = subprocess.run([sys.executable, str(SCRIPT), str(out), str(devices), agg], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return torch.load(out)


@pytest.mark.parametrize("agg", ["token_mean", "seq_mean_token_mean"])
def test_two_process_update_equals_single_process(tmp_path, agg):
    single = run(tmp_path / "one.pt", 1, agg)
    double = run(tmp_path / "two.pt", 2, agg)
    start = load_model("tiny")[0].state_dict()
    moved = max((single[k] - start[k]).abs().max().item() for k in single)
    assert moved > 1e-4  # the update did something
    for name in single:
        torch.testing.assert_close(double[name], single[name], rtol=1e-4, atol=1e-6, msg=name)
