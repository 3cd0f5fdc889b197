"""What a chat turn asks of its checkpointer: one read of the head, one write per step."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import EllipsisType
from typing import Any

from pyctx_web.chat import ChatSession
from pyctx_web.graph.checkpoint.base import CheckpointRecord, StoredCheckpoint, StoredWrite
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "demo" / "app"))
from assistant import AssistantData, build_assistant
from offline_model import OfflineModel

FAST = AssistantData(model=OfflineModel(token_delay_ms=0))


class CountingSaver(SqliteSaver):
    """A SQLite checkpointer that records each storage call it takes, by name."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.calls: list[str] = []

    async def aget(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        self.calls.append("aget")
        return await super().aget(thread_id, checkpoint_id)

    async def aput(
        self, checkpoint: StoredCheckpoint, *, latest: str | EllipsisType | None = ...
    ) -> None:
        self.calls.append("aput")
        await super().aput(checkpoint, latest=latest)

    async def aput_with_writes(
        self,
        checkpoint: StoredCheckpoint,
        writes: Sequence[StoredWrite],
        *,
        latest: str | EllipsisType | None = ...,
    ) -> None:
        self.calls.append("aput_with_writes")
        # The calls it makes itself are not the graph's.
        calls, self.calls = self.calls, []
        await super().aput_with_writes(checkpoint, writes, latest=latest)
        self.calls = calls

    async def aput_writes(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[StoredWrite]
    ) -> None:
        self.calls.append("aput_writes")
        await super().aput_writes(thread_id, checkpoint_id, writes)

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> AsyncIterator[CheckpointRecord]:
        self.calls.append("alist")
        async for record in super().alist(thread_id, limit=limit, before=before):
            yield record


def session_on(saver: SqliteSaver) -> ChatSession:
    graph = build_assistant(saver)
    return ChatSession(graph, checkpointer=saver, thread_id="t1", context=FAST)


async def collect(session: ChatSession, message: Any) -> list[dict[str, Any]]:
    return [event async for event in session.handle(message)]


def test_a_first_turn_reads_the_head_once_and_writes_once_per_step(tmp_path: Path) -> None:
    """The first turn up to its question: one read of the thread, then one write per step
    (the input with its writes, two steps, the question), and no read for the card."""
    saver = CountingSaver(tmp_path / "chat.db")

    async def flow() -> None:
        session = session_on(saver)
        events = await collect(session, {"type": "chat", "text": "help me with email"})
        assert saver.calls == ["aget", "aput_with_writes", "aput", "aput", "aput_writes"]
        card = events[-1]
        assert card["type"] == "needs_input"
        assert card["node"] == "enrich"
        state = await session.graph.aget_state({"configurable": {"thread_id": "t1"}})
        assert card["checkpoint_id"] == state.config["configurable"]["checkpoint_id"]
        assert card["interrupt_id"] == state.interrupts[0].id

    try:
        asyncio.run(flow())
    finally:
        saver.close()


def test_an_answer_turn_reads_the_head_once_and_ends_with_what_the_run_wrote(
    tmp_path: Path,
) -> None:
    """Answering the question reads the thread once; done names the checkpoint the run wrote
    last, and its text is the stored answer."""
    saver = CountingSaver(tmp_path / "chat.db")

    async def flow() -> None:
        session = session_on(saver)
        await collect(session, {"type": "chat", "text": "help me with email"})
        saver.calls.clear()
        events = await collect(session, {"type": "resume_chat", "resume_value": "Draft a reply"})
        assert saver.calls.count("aget") == 1
        assert saver.calls[0] == "aget"
        done = events[-1]
        assert done["type"] == "done"
        history = await session.history()
        assert done["checkpoint_id"] == history["checkpoint_id"]
        answers = [m["content"] for m in history["messages"] if m["kind"] == "answer"]
        assert done["text"] == answers[-1]

    try:
        asyncio.run(flow())
    finally:
        saver.close()


def test_a_history_message_lists_the_thread_once_and_reads_nothing_else(
    tmp_path: Path,
) -> None:
    """The history of the latest checkpoint, or of a named one, is one listing of the thread;
    an unknown checkpoint is refused after it."""
    saver = CountingSaver(tmp_path / "chat.db")

    async def flow() -> None:
        session = session_on(saver)
        asked = await collect(session, {"type": "chat", "text": "help me with email"})
        head = asked[-1]["checkpoint_id"]
        for message in ({"type": "history"}, {"type": "history", "checkpoint_id": head}):
            saver.calls.clear()
            [event] = await collect(session, message)
            assert saver.calls == ["alist"]
            assert event["checkpoint_id"] == head
            assert event["pending"]["question"] == "What should I do with your email?"
        refused = await collect(session, {"type": "history", "checkpoint_id": "nope"})
        assert refused == [
            {"type": "error", "message": "This chat has no saved version nope: reload the chat."}
        ]

    try:
        asyncio.run(flow())
    finally:
        saver.close()


class MovedUnder(CountingSaver):
    """Another program writes the thread just after this checkpointer's first read of it."""

    def __init__(self, path: Path, other: SqliteSaver) -> None:
        super().__init__(path)
        self.other = other
        self.moved_to: str | None = None

    async def aget(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        record = await super().aget(thread_id, checkpoint_id)
        if self.moved_to is None:
            graph = build_assistant(self.other)
            config = {"configurable": {"thread_id": thread_id}}
            moved = await graph.aupdate_state(config, {"request": "elsewhere"}, as_node="intake")
            self.moved_to = moved["configurable"]["checkpoint_id"]
        return record


def test_a_turn_on_a_head_moved_by_another_program_writes_nothing(tmp_path: Path) -> None:
    """When another program writes the thread between the turn's read of its head and its
    run, the turn is refused as busy and the other program's checkpoint stays the latest."""
    other = SqliteSaver(tmp_path / "chat.db")
    saver = MovedUnder(tmp_path / "chat.db", other)

    async def flow() -> None:
        session = session_on(saver)
        events = await collect(session, {"type": "chat", "text": "help me with email"})
        assert events[-1]["type"] == "error"
        assert events[-1]["code"] == "thread_busy"
        latest = await other.aget("t1")
        assert latest is not None
        assert latest.checkpoint.checkpoint_id == saver.moved_to
        assert len([r async for r in other.alist("t1")]) == 1

    try:
        asyncio.run(flow())
    finally:
        saver.close()
        other.close()
