"""The in-memory checkpointer keeps documents: isolated copies, read back as the stored text."""

from __future__ import annotations

from typing import Any

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph._engine.serde import JsonSerde
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver

from .helpers import State


def _graph(checkpointer: Any, kept: dict[str, Any]) -> Any:
    def remember(state: State) -> dict[str, Any]:
        answer = {"items": [1, 2], "nested": {"k": "v"}}
        kept["answer"] = answer  # the node keeps a reference to what it wrote
        return {"answer": answer, "log": ["a"]}

    return (
        StateGraph(State)
        .add_node("a", remember)
        .add_edge(START, "a")
        .compile(checkpointer=checkpointer)
    )


@pytest.mark.asyncio
async def test_values_mutated_after_the_run_leave_the_checkpoint_unchanged() -> None:
    """A value the node or the caller changes in place after the run does not change the
    checkpoint: the saver keeps a copy, not the run's objects."""
    kept: dict[str, Any] = {}
    graph = _graph(InMemorySaver(), kept)
    result = await graph.ainvoke({"log": []}, thread_id="t")
    kept["answer"]["items"].append(3)
    kept["answer"]["nested"]["k"] = "changed"
    result["log"].append("b")
    state = await graph.aget_state({"configurable": {"thread_id": "t"}})
    assert state.values["answer"] == {"items": [1, 2], "nested": {"k": "v"}}
    assert state.values["log"] == ["a"]
    state.values["answer"]["items"].append(4)
    again = await graph.aget_state({"configurable": {"thread_id": "t"}})
    assert again.values["answer"] == {"items": [1, 2], "nested": {"k": "v"}}


@pytest.mark.asyncio
async def test_a_kept_document_reads_back_as_the_text_a_persistent_saver_stores(
    tmp_path: Any,
) -> None:
    """Each checkpoint of a run reads back from memory as the same text SQLite stores."""
    records = []
    sqlite = SqliteSaver(tmp_path / "c.db")
    try:
        for saver in (InMemorySaver(), sqlite):
            graph = _graph(saver, {})
            await graph.ainvoke({"log": []}, thread_id="t")
            records.append([r async for r in saver.alist("t")])
    finally:
        sqlite.close()
    memory, stored = records
    serde = JsonSerde()

    def shape(text: str) -> Any:
        # Ids and times differ between the two runs; the documents' shapes do not.
        doc = serde.loads(text)
        doc["tasks"] = [t["name"] for t in doc["tasks"]]
        return doc

    assert [shape(r.checkpoint.data) for r in memory] == [shape(r.checkpoint.data) for r in stored]
    assert all(isinstance(r.checkpoint.data, str) for r in memory)
    assert len(memory) == 3


@pytest.mark.asyncio
async def test_a_str_subclass_in_the_state_is_kept_and_read_back_as_plain_text() -> None:
    """A value of a subclass of str, which the compact form refuses, is kept as its text."""

    class Name(str):
        """A str subclass a node writes."""

    saver = InMemorySaver()
    builder = StateGraph(State).add_node("a", lambda s: {"topic": Name("x")})
    graph = builder.add_edge(START, "a").compile(checkpointer=saver)
    await graph.ainvoke({"log": []}, thread_id="t")
    state = await graph.aget_state({"configurable": {"thread_id": "t"}})
    assert type(state.values["topic"]) is str
    assert state.values["topic"] == "x"
