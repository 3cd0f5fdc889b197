"""A checkpoint is stored with the pending writes it is made with: one call, one transaction."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import EllipsisType
from typing import Any, TypedDict

import pytest

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.base import CheckpointRecord, StoredCheckpoint, StoredWrite
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.errors import CheckpointStorageError
from pyctx_web.graph.types import interrupt


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


class Ask(TypedDict, total=False):
    """A topic, and the answer to a question about it."""

    topic: str
    answer: str


def _ask(state: Ask) -> dict[str, Any]:
    return {"answer": interrupt(f"what about {state['topic']}?")}


def _graph(saver: CountingSaver) -> Any:
    return (
        StateGraph(Ask)
        .add_node("ask", _ask)
        .add_edge(START, "ask")
        .add_edge("ask", END)
        .compile(checkpointer=saver)
    )


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_the_input_checkpoint_is_stored_with_its_input_in_one_call(
    tmp_path: Path, durability: Any
) -> None:
    """A run stores its input checkpoint and the input in one call, then one call per step."""
    saver = CountingSaver(tmp_path / "g.db")

    async def flow() -> None:
        graph = _graph(saver)
        await graph.ainvoke({"topic": "tea"}, {"configurable": {"thread_id": "t"}},
                            durability=durability)  # fmt: skip
        assert saver.calls == ["aget", "aput_with_writes", "aput", "aput_writes"]
        state = await graph.aget_state({"configurable": {"thread_id": "t"}})
        assert state.interrupts[0].value == "what about tea?"
        history = [s async for s in graph.aget_state_history({"configurable": {"thread_id": "t"}})]
        first = history[-1]
        assert first.metadata is not None
        assert first.metadata["source"] == "input"
        assert first.next == ("__start__",)
        assert first.tasks[0].result == {"topic": "tea"}

    try:
        asyncio.run(flow())
    finally:
        saver.close()


def test_a_run_kept_to_its_exit_stores_its_last_checkpoint_with_its_writes_at_once(
    tmp_path: Path,
) -> None:
    """With durability="exit", the checkpoint a run pauses at and its question are stored in
    one call."""
    saver = CountingSaver(tmp_path / "g.db")

    async def flow() -> None:
        graph = _graph(saver)
        config = {"configurable": {"thread_id": "t"}}
        await graph.ainvoke({"topic": "tea"}, config, durability="exit")
        assert saver.calls == ["aget", "aput_with_writes"]
        state = await graph.aget_state(config)
        assert state.interrupts[0].value == "what about tea?"

    try:
        asyncio.run(flow())
    finally:
        saver.close()


def test_sqlite_stores_a_checkpoint_with_its_writes_whole_or_not_at_all(tmp_path: Path) -> None:
    """SQLite stores a checkpoint and its writes in one transaction: a write it cannot store
    leaves no checkpoint behind, and stored writes keep their first position."""
    saver = SqliteSaver(tmp_path / "g.db")

    async def flow() -> None:
        first = StoredCheckpoint("t", "c1", None, "now", "d1")
        writes = [StoredWrite("a", "result", "x"), StoredWrite("b", "result", "y"),
                  StoredWrite("a", "result", "z")]  # fmt: skip
        await saver.aput_with_writes(first, writes)
        record = await saver.aget("t")
        assert record is not None
        assert [(w.task_id, w.data) for w in record.writes] == [("a", "z"), ("b", "y")]
        broken = StoredWrite("c", "result", None)  # type: ignore[arg-type]
        with pytest.raises(CheckpointStorageError):
            await saver.aput_with_writes(StoredCheckpoint("t", "c2", "c1", "now", "d2"), [broken])
        latest = await saver.aget("t")
        assert latest is not None
        assert latest.checkpoint.checkpoint_id == "c1"

    try:
        asyncio.run(flow())
    finally:
        saver.close()
