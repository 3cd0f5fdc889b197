"""Checkpoint storage: JSON types, errors naming the state key, atomic writes, corrupt rows."""

from __future__ import annotations

import dataclasses
import operator
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Annotated, Any

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph._engine.serde import JsonSerde
from pyctx_web.graph.checkpoint.base import Checkpointer, StoredCheckpoint, StoredWrite
from pyctx_web.graph.checkpoint.memory import InMemorySaver as InMemoryCheckpointer
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver as SQLiteCheckpointer
from pyctx_web.graph.errors import CheckpointError, SerializationError
from pyctx_web.graph.types import interrupt

from .helpers import State, checkpoint_id, history, node


@dataclasses.dataclass
class Address:
    """A nested dataclass named by the schema."""

    city: str
    tags: tuple[str, ...] = ()


@dataclasses.dataclass
class Person:
    """A dataclass state schema with nested values."""

    name: str = ""
    address: Address | None = None
    notes: Annotated[list[dict[str, Any]], operator.add] = dataclasses.field(default_factory=list)


@pytest.mark.asyncio
async def test_dataclass_state_round_trips_through_checkpoints(
    checkpointer: Checkpointer, mode: str
) -> None:
    """A dataclass state with nested dataclasses, tuples and odd dict keys survives a checkpoint."""
    seen: list[Person] = []

    def fill(p: Person) -> dict[str, Any]:
        return {
            "address": Address("Lyon", ("home", "work")),
            "notes": [{"__pyctx__": "not a marker", "n": 1.5, "ok": True, "none": None}],
        }

    def check(p: Person) -> dict[str, Any]:
        seen.append(p)
        return {"name": interrupt("name?")}

    graph = (
        StateGraph(Person)
        .add_node("fill", node(fill, mode))
        .add_node("check", node(check, mode))
        .add_edge(START, "fill")
        .add_edge("fill", "check")
        .compile(checkpointer=checkpointer)
    )
    await graph.ainvoke(Person(name="x"), thread_id="t")
    state = await graph.aget_state("t")
    assert state.values["address"] == Address("Lyon", ("home", "work"))
    assert state.values["notes"] == [
        {"__pyctx__": "not a marker", "n": 1.5, "ok": True, "none": None}
    ]
    assert isinstance(seen[0], Person)
    assert seen[0].address == Address("Lyon", ("home", "work"))


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("value", "type_name", "path"),
    [
        ({"a", "b"}, "set", "topic"),
        (b"raw", "bytes", "topic"),
        ({"inner": [1, object()]}, "object", "topic['inner'][1]"),
        ({1: "int key"}, "int", "topic[1]"),
        (float("nan"), "float", "topic"),
    ],
)
async def test_unsupported_value_fails_at_checkpoint_naming_key_and_type(
    checkpointer: Checkpointer, value: Any, type_name: str, path: str
) -> None:
    """A value outside the JSON types fails at checkpoint time, naming the key and the type."""
    graph = (
        StateGraph(State)
        .add_node("a", lambda s: {"topic": value})
        .add_edge(START, "a")
        .compile(checkpointer=checkpointer)
    )
    with pytest.raises(SerializationError) as info:
        await graph.ainvoke({"log": []}, thread_id="t")
    err = info.value
    assert (err.key, err.type_name, err.path) == ("topic", type_name, path)
    assert "state key 'topic'" in str(err)
    assert f"{type_name!r}" in str(err)
    snaps = await history(graph, "t")
    assert [s.metadata["source"] for s in snaps if s.metadata] == ["input"]


@pytest.mark.asyncio
async def test_unsupported_interrupt_value_is_named(checkpointer: Checkpointer) -> None:
    """An interrupt value outside the JSON types fails with an error naming the node."""
    graph = (
        StateGraph(State)
        .add_node("ask", lambda s: {"answer": interrupt({1, 2})})
        .add_edge(START, "ask")
        .compile(checkpointer=checkpointer)
    )
    with pytest.raises(SerializationError, match="interrupt value of node 'ask'"):
        await graph.ainvoke({"log": []}, thread_id="t")


def test_serde_refuses_dataclass_not_in_schema() -> None:
    """A dataclass the schema does not name is refused on write and on read."""
    serde = JsonSerde.for_schema(State)
    with pytest.raises(SerializationError, match="dataclass the state schema does not name"):
        serde.encode(Address("x"), key="topic")
    stored = JsonSerde([Address]).encode(Address("x"), key="topic")
    with pytest.raises(ValueError, match="not named by the state schema"):
        serde.decode(stored)


def _corruptible_graph(checkpointer: Checkpointer) -> Any:
    return (
        StateGraph(State)
        .add_node("a", lambda s: {"log": ["a"]})
        .add_node("ask", lambda s: {"answer": interrupt("q")})
        .add_edge(START, "a")
        .add_edge("a", "ask")
        .compile(checkpointer=checkpointer)
    )


@pytest.mark.asyncio
async def test_corrupt_sqlite_checkpoint_names_thread_and_id(tmp_path: Path) -> None:
    """A corrupt row gives CheckpointError naming thread and id; older ones stay readable."""
    db = tmp_path / "c.db"
    saver = SQLiteCheckpointer(db)
    graph = _corruptible_graph(saver)
    await graph.ainvoke({"log": []}, thread_id="t")
    snaps = await history(graph, "t")
    latest = checkpoint_id(snaps[0])
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(
            'UPDATE pyctx_checkpoints SET data = \'{"v": 1, "values": [\' WHERE checkpoint_id = ?',
            (latest,),
        )
    with pytest.raises(CheckpointError) as info:
        await graph.aget_state("t")
    assert (info.value.thread_id, info.value.checkpoint_id) == ("t", latest)
    assert "'t'" in str(info.value)
    assert latest in str(info.value)
    older = await graph.aget_state(snaps[1].config)
    assert older.values == {"log": []}
    assert older.next == ("a",)
    saver.close()


@pytest.mark.asyncio
async def test_corrupt_pending_write_names_thread_and_id(tmp_path: Path) -> None:
    """A corrupt pending write makes its checkpoint unreadable with an error naming it."""
    db = tmp_path / "w.db"
    saver = SQLiteCheckpointer(db)
    graph = _corruptible_graph(saver)
    await graph.ainvoke({"log": []}, thread_id="t")
    latest = checkpoint_id((await history(graph, "t"))[0])
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE pyctx_writes SET data = 'not json'")
    with pytest.raises(CheckpointError, match=latest):
        await graph.aget_state("t")
    saver.close()


@pytest.mark.asyncio
async def test_failed_sqlite_write_leaves_previous_checkpoint(tmp_path: Path) -> None:
    """A checkpoint write that fails inside its transaction leaves the previous one the latest."""
    db = tmp_path / "f.db"
    saver = SQLiteCheckpointer(db)
    graph = _corruptible_graph(saver)
    await graph.ainvoke({"log": []}, thread_id="ok")
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(
            "CREATE TRIGGER refuse_loop BEFORE INSERT ON pyctx_checkpoints "
            "WHEN NEW.thread_id = 't' AND NEW.data LIKE '%\"source\":\"loop\"%' "
            "BEGIN SELECT RAISE(ABORT, 'disk full'); END"
        )
    with pytest.raises(CheckpointError, match="disk full") as info:
        await graph.ainvoke({"log": []}, thread_id="t")
    assert info.value.thread_id == "t"
    state = await graph.aget_state("t")
    assert state.metadata is not None
    assert state.metadata["source"] == "input"
    assert state.next == ("a",)
    saver.close()


@pytest.mark.asyncio
async def test_corrupt_memory_checkpoint_names_thread_and_id() -> None:
    """The in-memory checkpointer reports a corrupt document the same way."""
    saver = InMemoryCheckpointer()
    graph = _corruptible_graph(saver)
    await graph.ainvoke({"log": []}, thread_id="t")
    record = await saver.aget("t")
    assert record is not None
    broken = dataclasses.replace(record.checkpoint, checkpoint_id="broken", data="[]")
    await saver.aput(broken)
    with pytest.raises(CheckpointError) as info:
        await graph.aget_state("t")
    assert (info.value.thread_id, info.value.checkpoint_id) == ("t", "broken")
    assert (
        await graph.aget_state(
            record.checkpoint
            and {
                "configurable": {"thread_id": "t", "checkpoint_id": record.checkpoint.checkpoint_id}
            }
        )
    ).next == ("ask",)


@pytest.mark.asyncio
async def test_checkpointer_contract(checkpointer: Checkpointer) -> None:
    """Both checkpointers order, page, upsert, refuse unknown ids and delete threads alike."""
    for i in range(5):
        await checkpointer.aput(
            StoredCheckpoint("t", f"c{i}", f"c{i - 1}" if i else None, "now", f"d{i}")
        )
    await checkpointer.aput(StoredCheckpoint("other", "x", None, "now", "dx"))
    latest = await checkpointer.aget("t")
    assert latest is not None
    assert latest.checkpoint.checkpoint_id == "c4"
    assert await checkpointer.aget("t", "nope") is None
    assert await checkpointer.aget("missing") is None
    ids = [r.checkpoint.checkpoint_id async for r in checkpointer.alist("t")]
    assert ids == ["c4", "c3", "c2", "c1", "c0"]
    ids = [r.checkpoint.checkpoint_id async for r in checkpointer.alist("t", before="c3", limit=2)]
    assert ids == ["c2", "c1"]
    assert [r async for r in checkpointer.alist("t", limit=0)] == []
    with pytest.raises(CheckpointError, match="no checkpoint 'nope'"):
        [r async for r in checkpointer.alist("t", before="nope")]
    await checkpointer.aput_writes("t", "c2", [StoredWrite("task", "result", "1")])
    await checkpointer.aput_writes(
        "t", "c2", [StoredWrite("task2", "error", "2"), StoredWrite("task", "result", "3")]
    )
    record = await checkpointer.aget("t", "c2")
    assert record is not None
    assert record.writes == (StoredWrite("task", "result", "3"), StoredWrite("task2", "error", "2"))
    with pytest.raises(CheckpointError, match="no checkpoint 'zz'"):
        await checkpointer.aput_writes("t", "zz", [StoredWrite("task", "result", "1")])
    with pytest.raises(CheckpointError, match="already exists"):
        await checkpointer.aput(StoredCheckpoint("t", "c1", None, "now", "dup"))
    await checkpointer.adelete_thread("t")
    assert await checkpointer.aget("t") is None
    assert await checkpointer.aget("other") is not None


@pytest.mark.asyncio
async def test_step_reads_do_not_scan_history(checkpointer: Checkpointer) -> None:
    """Resuming reads only the latest checkpoint: a long history is never listed during a step."""
    listed: list[str] = []
    original = checkpointer.alist

    def spy(thread_id: str, **kw: Any) -> Any:
        listed.append(thread_id)
        return original(thread_id, **kw)

    checkpointer.alist = spy  # type: ignore[method-assign]
    graph = (
        StateGraph(State)
        .add_node(
            "loop", lambda s: {"log": ["x"]} if len(s["log"]) < 30 else {"answer": interrupt("q")}
        )
        .add_edge(START, "loop")
        .add_conditional_edges("loop", lambda s: "loop")
        .compile(checkpointer=checkpointer)
    )
    out = await graph.ainvoke({"log": []}, thread_id="t", config={"recursion_limit": 100})
    assert len(out["log"]) == 30
    assert listed == []
