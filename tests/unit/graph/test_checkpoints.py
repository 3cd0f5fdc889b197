"""Checkpoints of graph runs: JSON types, errors naming the state key, a failed write, reads.

The checkpointers themselves, and corrupt rows read by a graph, are the contract scenarios of
tests/scenarios/checkpointer_contract.py.
"""

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
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.errors import CheckpointError, SerializationError
from pyctx_web.graph.types import interrupt

from .helpers import EMPTY, SUPPORTED, State, history, node


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


PROBLEMS = {"int": "a dict key that is not a str", "float": "a non-finite float"}
"""What is wrong with a value of these types in the parameters below (others: no JSON type)."""


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
    at = "" if path == "topic" else f" at {path}"
    problem = PROBLEMS.get(type_name, "not a checkpointable type")
    assert (
        str(err)
        == f"cannot checkpoint state key 'topic'{at}: {type_name!r} is {problem}{SUPPORTED}"
    )
    snaps = await history(graph, "t")
    assert [s.metadata["source"] for s in snaps if s.metadata] == ["loop", "input"]
    assert (snaps[0].values, snaps[0].next) == ({**EMPTY, "log": []}, ("a",))
    assert [t.result for t in snaps[0].tasks] == [None]


@pytest.mark.asyncio
async def test_unsupported_input_value_is_refused_before_anything_is_stored(
    checkpointer: Checkpointer,
) -> None:
    """An input value outside the JSON types fails naming the key and type, and stores nothing."""
    graph = (
        StateGraph(State)
        .add_node("a", lambda s: {"log": ["a"]})
        .add_edge(START, "a")
        .compile(checkpointer=checkpointer)
    )
    await graph.ainvoke({"topic": "fine"}, thread_id="old")
    before = await history(graph, "old")
    for tid in ("new", "old"):
        with pytest.raises(SerializationError) as info:
            await graph.ainvoke({"topic": {"a", "b"}}, thread_id=tid)
        assert info.value.type_name == "set"
        assert str(info.value) == (
            f"cannot checkpoint state key 'topic': 'set' is not a checkpointable type{SUPPORTED}"
        )
    assert await history(graph, "new") == []
    assert await history(graph, "old") == before


@pytest.mark.asyncio
async def test_unsupported_interrupt_value_is_named(checkpointer: Checkpointer) -> None:
    """An interrupt value outside the JSON types fails with an error naming the node."""
    graph = (
        StateGraph(State)
        .add_node("ask", lambda s: {"answer": interrupt({1, 2})})
        .add_edge(START, "ask")
        .compile(checkpointer=checkpointer)
    )
    with pytest.raises(
        SerializationError,
        match=(
            r"^cannot checkpoint the interrupt value of node 'ask': 'set' is not a "
            r"checkpointable type \(supported: str, int, float, bool, None, list, "
            r"tuple, dict with str keys, the dataclasses and enums of the state "
            r"schema and pydantic models\)$"
        ),
    ):
        await graph.ainvoke({"log": []}, thread_id="t")


def test_serde_refuses_dataclass_not_in_schema() -> None:
    """A dataclass the schema does not name is refused on write and on read."""
    serde = JsonSerde.for_schema(State)
    with pytest.raises(
        SerializationError,
        match=(
            r"^cannot checkpoint state key 'topic': 'Address' is a dataclass the "
            r"state schema does not name \(supported: str, int, float, bool, None, "
            r"list, tuple, dict with str keys, the dataclasses and enums of the "
            r"state schema and pydantic models\)$"
        ),
    ):
        serde.encode(Address("x"), key="topic")
    stored = JsonSerde([Address]).encode(Address("x"), key="topic")
    with pytest.raises(
        ValueError,
        match=(
            r"^stored dataclass '[\w.]*test_checkpoints\.Address' is not "
            r"named by the state schema$"
        ),
    ):
        serde.decode(stored)


def _asking_graph(checkpointer: Checkpointer) -> Any:
    """a -> ask, where ask asks "q"."""
    return (
        StateGraph(State)
        .add_node("a", lambda s: {"log": ["a"]})
        .add_node("ask", lambda s: {"answer": interrupt("q")})
        .add_edge(START, "a")
        .add_edge("a", "ask")
        .compile(checkpointer=checkpointer)
    )


@pytest.mark.asyncio
async def test_failed_sqlite_write_leaves_previous_checkpoint(tmp_path: Path) -> None:
    """A failed checkpoint write keeps the previous one the latest; the run goes on from it."""
    db = tmp_path / "f.db"
    saver = SqliteSaver(db)
    graph = _asking_graph(saver)
    await graph.ainvoke({"log": []}, thread_id="ok")
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(
            "CREATE TRIGGER refuse_loop BEFORE INSERT ON pyctx_checkpoints "
            "WHEN NEW.thread_id = 't' AND NEW.data LIKE '%\"source\":\"loop\"%' "
            "BEGIN SELECT RAISE(ABORT, 'disk full'); END"
        )
    with pytest.raises(
        CheckpointError,
        match=r"^cannot write checkpoint '[0-9a-f-]+' of thread 't': disk full$",
    ) as info:
        await graph.ainvoke({"log": []}, thread_id="t")
    assert info.value.thread_id == "t"
    state = await graph.aget_state("t")
    assert state.metadata is not None
    assert state.metadata["source"] == "input"
    assert state.next == ("__start__",)
    assert [(t.name, t.result) for t in state.tasks] == [("__start__", {"log": []})]
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP TRIGGER refuse_loop")
    out = await graph.ainvoke(None, thread_id="t")
    assert [i.value for i in out["__interrupt__"]] == ["q"]
    assert out["log"] == ["a"]
    saver.close()


@pytest.mark.asyncio
async def test_step_reads_do_not_scan_history(
    checkpointer: Checkpointer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resuming reads only the latest checkpoint: a long history is never listed during a step."""
    listed: list[str] = []
    original = checkpointer.alist

    def spy(thread_id: str, **kw: Any) -> Any:
        listed.append(thread_id)
        return original(thread_id, **kw)

    monkeypatch.setattr(checkpointer, "alist", spy)
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
