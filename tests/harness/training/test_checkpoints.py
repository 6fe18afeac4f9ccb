"""Checkpoints are written through a temporary file: complete or not replaced at all."""

import threading
import zipfile

import pytest
import torch

from harness.training.checkpoints import StreamingCheckpointIO


def lightning_state(epoch: int, **tensors) -> dict:
    """The records a Lightning checkpoint holds (what resuming needs), with the given tensors."""
    return {"epoch": epoch, "global_step": epoch, "pytorch-lightning_version": "2", "loops": {}, "state_dict": tensors}


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


def test_damage_of_every_kind_is_found(tmp_path):
    from harness.training.checkpoints import damage

    good = tmp_path / "good.ckpt"
    StreamingCheckpointIO().save_checkpoint(lightning_state(1, w=torch.ones(20_000)), good)
    assert damage(good) is None
    data = good.read_bytes()
    middle = len(data) // 2  # inside the 80 KB tensor
    flipped = data[:middle] + bytes(b ^ 0xFF for b in data[middle : middle + 4096]) + data[middle + 4096 :]
    cases = {
        "empty": b"",
        "truncated or not a torch checkpoint": data[:40],
        "garbage": b"x" * 999,
        "corrupt data in archive/data/0": flipped,  # a partial overwrite: the index is whole, the CRC is not
    }
    for expected, content in cases.items():
        path = tmp_path / "bad.ckpt"
        path.write_bytes(content)
        assert damage(path) == ("truncated or not a torch checkpoint" if expected == "garbage" else expected)
    with zipfile.ZipFile(tmp_path / "bad.ckpt", "w") as archive:  # a zip holding a pickle torch cannot read
        archive.writestr("archive/data.pkl", b"not a pickle")
    assert damage(tmp_path / "bad.ckpt").startswith("not a readable torch checkpoint (")
    without_version = {k: v for k, v in lightning_state(3).items() if k != "pytorch-lightning_version"}
    for foreign in ({"epoch": 3}, [1, 2], without_version):
        torch.save(foreign, tmp_path / "bad.ckpt")  # a torch file, but not one Lightning can resume
        assert damage(tmp_path / "bad.ckpt") == "not a Lightning checkpoint"


def test_newest_intact_checkpoint_is_chosen_with_a_note(tmp_path):
    from harness.training.checkpoints import latest_intact_checkpoint, steps_in

    io = StreamingCheckpointIO()
    assert latest_intact_checkpoint(tmp_path) is None
    io.save_checkpoint(lightning_state(3), tmp_path / "rl-step3.ckpt")
    io.save_checkpoint(lightning_state(7), tmp_path / "rl-step7.ckpt")
    io.save_checkpoint(lightning_state(7), tmp_path / "last.ckpt")
    assert latest_intact_checkpoint(tmp_path) == (tmp_path / "last.ckpt", None)
    (tmp_path / "last.ckpt").write_bytes(b"")
    (tmp_path / "rl-step7.ckpt").write_bytes(b"junk")
    path, note = latest_intact_checkpoint(tmp_path)
    assert path == tmp_path / "rl-step3.ckpt" and steps_in(path) == 4
    assert note == (
        "last.ckpt is damaged (empty); rl-step7.ckpt is damaged (truncated or not a torch checkpoint); "
        "resuming from rl-step3.ckpt"
    )
