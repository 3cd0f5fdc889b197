"""One read of a thread's head shared by the caller that checks it and the run it starts.

A chat turn reads the thread's latest checkpoint to check the message against
it (a question waiting, the branch shown), then runs the graph on that same
head, whose first act is to read it again. With a :class:`HeadShare` open in
the caller's context (the block of :func:`share_head`), the first read of the
thread's latest checkpoint is kept and the next one (the run's) takes it instead
of reading the storage. Only once: every later read goes to the storage.

The run holds its thread (:meth:`Checkpointer.hold_thread`) only after that
read. A head another program moved in between fails the run's first
compare-and-set, as a lost race does
(:class:`~pyctx_web.graph.errors.ThreadBusyError`): nothing is written on a
stale head.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyctx_web.graph.checkpoint.base import Checkpointer, CheckpointRecord

__all__ = ["HeadShare", "read_checkpoint", "share_head"]


class HeadShare:
    """The first read of ``thread_id``'s latest checkpoint from ``checkpointer``, kept for the next.

    ``state`` is ``"open"`` (nothing read yet), ``"kept"`` (``record`` waits to
    be taken) or ``"closed"`` (taken, or closed by its owner: nothing more is
    kept or handed over).
    """

    __slots__ = ("checkpointer", "record", "state", "thread_id")

    def __init__(self, checkpointer: Checkpointer, thread_id: str) -> None:
        self.checkpointer = checkpointer
        self.thread_id = thread_id
        self.record: CheckpointRecord | None = None
        self.state = "open"

    def close(self) -> None:
        """Keep and hand over nothing more."""
        self.state = "closed"
        self.record = None

    def covers(self, checkpointer: Checkpointer, thread_id: str) -> bool:
        """Whether a read of ``thread_id``'s latest checkpoint from ``checkpointer`` is shared."""
        return (
            self.state != "closed"
            and checkpointer is self.checkpointer
            and thread_id == self.thread_id
        )


_share: ContextVar[HeadShare | None] = ContextVar("pyctx_web_head_share", default=None)


@contextmanager
def share_head(checkpointer: Checkpointer, thread_id: str) -> Iterator[HeadShare]:
    """Open a :class:`HeadShare` in the current context for the ``with`` block; runs started
    in the block inherit it. Leaving the block closes it and puts back the share the context
    had before (none, unless blocks nest).
    """
    share = HeadShare(checkpointer, thread_id)
    previous = _share.get()
    _share.set(share)
    try:
        yield share
    finally:
        share.close()
        # The reset, without Token.reset: the block's owner may be an async generator (a
        # chat turn) that another task closes, where reset raises ValueError. Putting back
        # the previous value where this share is still the value does what reset does in
        # the opening context, and elsewhere touches only a copy that holds this share.
        if _share.get() is share:
            _share.set(previous)


async def read_checkpoint(
    checkpointer: Checkpointer, thread_id: str, checkpoint_id: str | None
) -> CheckpointRecord | None:
    """``checkpointer.aget(thread_id, checkpoint_id)``, or the shared read of the latest."""
    share = _share.get()
    if checkpoint_id is not None or share is None or not share.covers(checkpointer, thread_id):
        return await checkpointer.aget(thread_id, checkpoint_id)
    if share.state == "kept":
        record = share.record
        share.close()
        return record
    record = await checkpointer.aget(thread_id)
    if share.state == "open":
        share.record, share.state = record, "kept"
    return record
