"""Checkpoint writing that is atomic without holding a second copy of the state in memory.

Lightning's default writer serialises the whole checkpoint into an in-memory buffer before it
writes the file, so saving briefly needs the model and optimizer state twice: for SmolLM2 with
AdamW that measured ~1.1 GB of extra peak RSS (4657 vs 3523 MB). Here `torch.save` streams into a temporary
file next to the target, which is then renamed over it: a kill during the save leaves the
previous checkpoint untouched (rename is atomic on one filesystem), and memory stays flat.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import torch
from lightning.fabric.plugins.io.torch_io import TorchCheckpointIO


class StreamingCheckpointIO(TorchCheckpointIO):
    """`TorchCheckpointIO` for local paths, writing through a temporary file and an atomic rename."""

    def save_checkpoint(self, checkpoint: dict, path, storage_options=None) -> None:
        if storage_options is not None:
            raise TypeError(f"storage_options are not supported by {type(self).__name__}, got {storage_options!r}")
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as sink:
                torch.save(checkpoint, sink)
                sink.flush()
                os.fsync(sink.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
