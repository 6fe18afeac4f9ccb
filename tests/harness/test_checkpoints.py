"""Checkpoints are written through a temporary file: complete or not replaced at all."""

import threading

import pytest
import torch

from harness.checkpoints import StreamingCheckpointIO


def test_save_then_load_round_trip(tmp_path):
    io = StreamingCheckpointIO()
    state = {"epoch": 3, "weights": torch.arange(6.0).reshape(2, 3)}
    io.save_checkpoint(state, tmp_path / "sub" / "last.ckpt")
    loaded = io.load_checkpoint(tmp_path / "sub" / "last.ckpt")
    assert loaded["epoch"] == 3 and torch.equal(loaded["weights"], state["weights"])
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["last.ckpt"]


def test_failed_save_keeps_the_previous_checkpoint_and_leaves_no_temporary(tmp_path):
    io = StreamingCheckpointIO()
    path = tmp_path / "last.ckpt"
    io.save_checkpoint({"epoch": 1}, path)
    with pytest.raises(TypeError, match="pickle"):
        io.save_checkpoint({"epoch": 2, "unpicklable": threading.Lock()}, path)
    assert io.load_checkpoint(path)["epoch"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["last.ckpt"]


def test_storage_options_are_refused(tmp_path):
    with pytest.raises(TypeError, match="storage_options"):
        StreamingCheckpointIO().save_checkpoint({}, tmp_path / "x.ckpt", storage_options={"a": 1})
