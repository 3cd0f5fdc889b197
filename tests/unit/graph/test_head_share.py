"""A read of a thread's head shared with the run that follows it (graph/_engine/heads.py)."""

from __future__ import annotations

import asyncio
from contextvars import copy_context

from pyctx_web.graph._engine.heads import HeadShare, read_checkpoint, share_head
from pyctx_web.graph.checkpoint.base import CheckpointRecord, StoredCheckpoint
from pyctx_web.graph.checkpoint.memory import InMemorySaver


class CountingReads(InMemorySaver):
    """An in-memory checkpointer that counts the reads it serves."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def aget(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        self.reads += 1
        return await super().aget(thread_id, checkpoint_id)


def _checkpoint(checkpoint_id: str, parent: str | None) -> StoredCheckpoint:
    return StoredCheckpoint("t", checkpoint_id, parent, "2026-01-01T00:00:00Z", "{}")


def test_the_next_read_of_the_head_takes_the_shared_one_once() -> None:
    """With a share open, the second read of the head costs no storage read; the third does,
    and sees what was written meanwhile."""

    async def flow() -> None:
        saver = CountingReads()
        await saver.aput(_checkpoint("a", None))
        with share_head(saver, "t"):
            first = await read_checkpoint(saver, "t", None)
            await saver.aput(_checkpoint("b", "a"))
            second = await read_checkpoint(saver, "t", None)
            assert saver.reads == 1
            assert first is second
            third = await read_checkpoint(saver, "t", None)
            assert saver.reads == 2
            assert third is not None
            assert third.checkpoint.checkpoint_id == "b"

    asyncio.run(flow())


def test_only_the_shared_thread_and_checkpointer_and_its_latest_are_shared() -> None:
    """Reads of another thread, of another checkpointer, of a named checkpoint, or after the
    share is closed all go to storage."""

    async def flow() -> None:
        saver, other = CountingReads(), CountingReads()
        await saver.aput(_checkpoint("a", None))
        with share_head(saver, "t") as share:
            await read_checkpoint(saver, "t", None)
            await read_checkpoint(saver, "u", None)
            await read_checkpoint(other, "t", None)
            await read_checkpoint(saver, "t", "a")
            assert (saver.reads, other.reads) == (3, 1)
            share.close()
            await read_checkpoint(saver, "t", None)
            assert saver.reads == 4

    asyncio.run(flow())


def test_a_share_reaches_the_tasks_started_under_it_but_not_other_contexts() -> None:
    """A task created after the share opened takes the kept read; a task created before, in
    its own copy of the context, reads storage."""

    async def flow() -> None:
        saver = CountingReads()
        await saver.aput(_checkpoint("a", None))
        gate = asyncio.Event()

        async def earlier() -> None:
            await gate.wait()
            await read_checkpoint(saver, "t", None)

        before = asyncio.create_task(earlier())
        with share_head(saver, "t"):
            await read_checkpoint(saver, "t", None)
            gate.set()
            await before
            assert saver.reads == 2
            await asyncio.create_task(read_checkpoint(saver, "t", None))
            assert saver.reads == 2

    asyncio.run(flow())


def _shares_in_context() -> list[HeadShare]:
    return [value for value in copy_context().values() if isinstance(value, HeadShare)]


def test_leaving_the_block_puts_back_the_share_the_context_had() -> None:
    """After a nested block the outer share is current again, and after the outer block the
    context holds no share."""

    async def flow() -> None:
        saver = CountingReads()
        await saver.aput(_checkpoint("a", None))
        with share_head(saver, "t") as outer:
            with share_head(saver, "u"):
                pass
            assert _shares_in_context() == [outer]
            await read_checkpoint(saver, "t", None)
            await read_checkpoint(saver, "t", None)
            assert saver.reads == 1
        assert _shares_in_context() == []

    asyncio.run(flow())
