"""A collective that fails because another rank died becomes one line (harness.training.peer_failure)."""

import pytest

from harness.common.errors import WorkerError
from harness.training.peer_failure import peer_failure

GLOO_CLOSED = (
    "[/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:29500\n"
    "Exception raised from ... GLHF!"
)


@pytest.mark.parametrize(
    "message",
    [
        GLOO_CLOSED,
        "[../gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms: Connection reset by peer",
        "NCCL error in: ProcessGroupNCCL.cpp:1275, remote process exited or there was a network error",
    ],
)
def test_a_peer_gone_in_a_collective_is_one_line(message):
    peer = peer_failure(RuntimeError(message), ranks=2)
    assert isinstance(peer, WorkerError)
    text = str(peer)
    assert "\n" not in text and text.startswith("another of the 2 data-parallel ranks ended during a collective")
    assert "--resume" in text


def test_anything_else_keeps_its_traceback():
    assert peer_failure(RuntimeError(GLOO_CLOSED), ranks=1) is None  # one process has no peer
    assert peer_failure(RuntimeError("CUDA out of memory"), ranks=2) is None
    assert peer_failure(ValueError("Connection closed by peer"), ranks=2) is None  # not a collective's error
    own = WorkerError("the rollout worker of rank 1 failed: killed")
    assert peer_failure(own, ranks=2) is None  # this rank's own failure already is one line
