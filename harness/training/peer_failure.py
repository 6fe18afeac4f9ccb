"""A data-parallel rank that died, as the other ranks see it: one line instead of a collective's traceback.

    peer = peer_failure(error, ranks)      # a WorkerError when `error` says a peer rank is gone, else None

Under DDP every rank meets the others in collectives (all-reduce of the step's metrics, barriers).
When one rank ends (its rollout worker died and it printed why, or it was killed), the others fail
inside the collective with the backend's words: gloo's `Connection closed by peer` or `Connection
reset by peer`, NCCL's `remote process exited`. That is the consequence of the first rank's failure,
not a bug: the surviving ranks say so in one line (exit 2) and the run's checkpoints are kept, so
`--resume` continues it.
"""

from __future__ import annotations

from harness.common.errors import WorkerError, first_line

# What a backend says when the process on the other end of a collective has gone away.
PEER_GONE = (
    "connection closed by peer",
    "connection reset by peer",
    "broken pipe",
    "remote process exited",
    "communicator was aborted",
)


def peer_failure(error: BaseException, ranks: int) -> WorkerError | None:
    """The one-line error to raise in place of `error` when it is a collective failing because another of the
    `ranks` data-parallel processes ended; None for anything else (a bug keeps its traceback)."""
    if ranks < 2 or not isinstance(error, RuntimeError) or isinstance(error, WorkerError):
        return None
    text = str(error).lower()
    if not any(words in text for words in PEER_GONE):
        return None
    return WorkerError(
        f"another of the {ranks} data-parallel ranks ended during a collective ({first_line(error)[:120]}); "
        "its own message above says why, and --resume continues the run from its last checkpoint"
    )
