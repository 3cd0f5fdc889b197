"""A read of a thread's head shared with the run that follows it (graph/_engine/heads.py)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncGenerator
from contextvars import copy_context
from pathlib import Path
from typing import Any, cast

from pyctx_web.chat import ChatSession
from pyctx_web.graph._engine.heads import HeadShare, read_checkpoint, share_head
from pyctx_web.graph.checkpoint.base import CheckpointRecord, StoredCheckpoint
from pyctx_web.graph.checkpoint.memory import InMemorySaver

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "demo" / "app"))
from assistant import AssistantData, build_assistant
from offline_model import OfflineModel


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


def _session(saver: InMemorySaver) -> ChatSession:
    graph = build_assistant(saver)
    data = AssistantData(model=OfflineModel(token_delay_ms=0))
    return ChatSession(graph, checkpointer=saver, thread_id="t1", context=data)


def test_a_chat_turn_leaves_no_share_in_the_context_it_ran_in() -> None:
    """Once a chat turn's events are all read, the reader's context holds no share (and so
    no reference to the checkpointer)."""

    async def flow() -> None:
        session = _session(InMemorySaver())
        events = [e async for e in session.handle({"type": "chat", "text": "help me with email"})]
        assert events[-1]["type"] == "needs_input"
        assert _shares_in_context() == []

    asyncio.run(flow())


def test_a_chat_turn_closed_by_another_task_than_its_reader_closes_cleanly() -> None:
    """A turn whose reader stops after the first event and whose events another task closes
    ends without an error: its share is closed and the session no longer runs a turn."""

    async def flow() -> None:
        problems: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _, report: problems.append(report))
        session = _session(InMemorySaver())
        turn = cast(
            AsyncGenerator[dict[str, Any]],
            session.handle({"type": "chat", "text": "help me with email"}),
        )

        async def first_event() -> list[HeadShare]:
            await anext(turn)
            return _shares_in_context()

        shares = await asyncio.create_task(first_event())
        await turn.aclose()
        for _ in range(10):  # the loop closes the inner generators in tasks of its own
            await asyncio.sleep(0)
        assert problems == []
        assert [share.state for share in shares] == ["closed"]
        assert not session.running

    asyncio.run(flow())
