"""Values a checkpoint cannot hold, damaged documents and failing reducers, on any checkpointer.

Each ``scenario_<behaviour>(make_checkpointer)`` is an async function with
plain asserts; ``make_checkpointer()`` gives a checkpointer over one fresh
storage, and ``make_checkpointer.corrupt(...)`` replaces a stored document
(see tests/scenarios/checkpointer_contract.py). The encoding is pure Python,
but what each storage accepts and how deep a stack may grow differ between
CPython and Pyodide: the scenarios run on both.

The limits are those pyctx_web.graph._engine.serde documents: 100 levels of
nesting and ints of 4300 digits.

This module imports only pyctx_web and the standard library: it is copied
into Pyodide and run there as it is.
"""

from __future__ import annotations

import enum
import json
import operator
from collections.abc import Awaitable
from typing import Annotated, Any, Literal, TypedDict

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.errors import (
    CheckpointError,
    CorruptCheckpointError,
    InvalidUpdateError,
    SerializationError,
)
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, StateSnapshot, interrupt
from tests.scenarios.common import CheckpointerFactory

MAX_DEPTH = 100
"""The most lists, tuples, dicts and dataclasses a checkpointed value may nest."""
MAX_INT_DIGITS = 4300
"""The most digits a checkpointed int may have."""


class Level(enum.IntEnum):
    """An IntEnum the state names."""

    LOW = 1
    HIGH = 2


class Color(enum.StrEnum):
    """A StrEnum the state names, inside a TypedDict of a list."""

    RED = "red"
    BLUE = "blue"


class Mode(enum.Enum):
    """A plain Enum the state names only through ``Literal``."""

    FAST = ("fast", 1)
    SAFE = ("safe", 2)


class Stray(enum.IntEnum):
    """An IntEnum no state names."""

    ONE = 1


class StrayText(enum.StrEnum):
    """A StrEnum no state names."""

    A = "a"


class Item(TypedDict):
    """An item of the state's list."""

    name: str
    color: Color


class State(TypedDict, total=False):
    """The state of the scenario graphs."""

    topic: Any
    log: Annotated[list[str], operator.add]
    level: Level
    items: list[Item]
    mode: Literal[Mode.FAST, Mode.SAFE] | None


def _deep(levels: int, kind: type = list) -> Any:
    """``levels`` nested containers of ``kind`` around a string."""
    value: Any = "bottom"
    for _ in range(levels):
        value = kind([value])
    return value


def _writing(saver: Checkpointer, update: Any) -> CompiledStateGraph:
    """START -> write (returns ``update``) -> ask (asks "q")."""
    return (
        StateGraph(State)
        .add_node("write", lambda s: update)
        .add_node("ask", lambda s: {"topic": interrupt("q")})
        .add_edge(START, "write")
        .add_edge("write", "ask")
        .compile(checkpointer=saver)
    )


async def _history(graph: CompiledStateGraph, thread_id: str) -> list[StateSnapshot]:
    return [s async for s in graph.aget_state_history(thread_id)]


async def _raises(kind: type[BaseException], awaitable: Awaitable[Any]) -> Any:
    """Await ``awaitable`` and return the ``kind`` error it must raise."""
    try:
        await awaitable
    except kind as exc:
        return exc
    raise AssertionError(f"expected {kind.__name__}")


REFUSED: list[tuple[Any, str, str, str]] = [
    ("text \ud800", "str", "topic", "lone surrogate (U+D800 at index 5)"),
    ({"ok": ["x", "\udfff"]}, "str", "topic['ok'][1]", "lone surrogate"),
    ({"k\udc80": 1}, "str", "topic['k\\udc80']", "lone surrogate"),
    (_deep(MAX_DEPTH + 1), "list", "topic" + "[0]" * MAX_DEPTH, "deeper than 100 levels"),
    (_deep(MAX_DEPTH + 1, tuple), "tuple", "topic" + "[0]" * MAX_DEPTH, "deeper than 100"),
    (10**MAX_INT_DIGITS, "int", "topic", "more than 4300 digits"),
    ({"n": [-(10**5000)]}, "int", "topic['n'][0]", "more than 4300 digits"),
    (Stray.ONE, "Stray", "topic", "enum the state schema does not name"),
    ([StrayText.A], "StrayText", "topic[0]", "enum the state schema does not name"),
    ({Color.RED: 1}, "Color", "topic[<Color.RED: 'red'>]", "enum member used as a dict key"),
]
"""Values a node writes to ``topic``, the type and path named, and words of the message."""


async def scenario_values_json_cannot_hold_are_refused_before_they_are_stored(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A node's value JSON cannot hold faithfully fails naming key, path and type, unstored."""
    saver = make_checkpointer()
    for n, (value, type_name, path, words) in enumerate(REFUSED):
        graph = _writing(saver, {"topic": value})
        err = await _raises(SerializationError, graph.ainvoke({"log": []}, thread_id=f"t{n}"))
        assert (err.key, err.type_name, err.path) == ("topic", type_name, path), err
        assert "state key 'topic'" in str(err), err
        assert words in str(err), err
        snaps = await _history(graph, f"t{n}")
        assert [s.metadata["source"] for s in snaps if s.metadata] == ["loop", "input"]
        assert (snaps[0].values, snaps[0].next) == ({"log": []}, ("write",))
        assert [t.result for t in snaps[0].tasks] == [None]


async def scenario_refused_input_and_update_leave_the_thread_as_it_was(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """An input or update_state value JSON cannot hold stores nothing: threads stay as they were."""
    saver = make_checkpointer()
    graph = _writing(saver, {"log": ["w"]})
    await graph.ainvoke({"topic": "fine", "log": []}, thread_id="old")
    before = await _history(graph, "old")
    config = {"configurable": {"thread_id": "old"}}
    for value, _type_name, _path, words in REFUSED:
        for thread in ("new", "old"):
            err = await _raises(
                SerializationError, graph.ainvoke({"topic": value}, thread_id=thread)
            )
            assert (err.key, words in str(err)) == ("topic", True), err
        err = await _raises(SerializationError, graph.aupdate_state(config, {"topic": value}))
        assert (err.key, words in str(err)) == ("topic", True), err
    assert await _history(graph, "new") == []
    assert await _history(graph, "old") == before


async def scenario_values_at_the_limits_read_back_equal(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """100 levels of nesting, 4300-digit ints and text outside the BMP read back equal."""
    values = [
        _deep(MAX_DEPTH),
        _deep(MAX_DEPTH, tuple),
        10**MAX_INT_DIGITS - 1,
        -(10**MAX_INT_DIGITS - 1),
        "🎉 日本 été \u2028 \x00",
        {"\U0001f600": [1.5, None, True]},
    ]
    saver = make_checkpointer()
    for n, value in enumerate(values):
        out = await _writing(saver, {"topic": value}).ainvoke({"log": []}, thread_id=f"t{n}")
        assert [i.value for i in out["__interrupt__"]] == ["q"]
        state = await _writing(make_checkpointer(), {}).aget_state(f"t{n}")
        assert state.values["topic"] == value, n
        assert type(state.values["topic"]) is type(value)


async def scenario_enums_the_schema_names_come_back_as_their_members(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """IntEnum, StrEnum and Enum members of classes the state names read back as those members."""
    seen: list[Any] = []
    update = {"level": Level.HIGH, "items": [{"name": "x", "color": Color.BLUE}], "mode": Mode.SAFE}

    def ask(state: State) -> dict[str, Any]:
        seen.append(dict(state))
        return {"topic": interrupt("q")}

    graph = (
        StateGraph(State)
        .add_node("write", lambda s: update)
        .add_node("ask", ask)
        .add_edge(START, "write")
        .add_edge("write", "ask")
        .compile(checkpointer=make_checkpointer())
    )
    await graph.ainvoke({"log": []}, thread_id="t")
    await graph.ainvoke(Command(resume="a"), thread_id="t")
    reader = _writing(make_checkpointer(), {})
    for values in (seen[-1], (await reader.aget_state("t")).values):
        assert values["level"] is Level.HIGH
        assert values["items"][0]["color"] is Color.BLUE
        assert values["mode"] is Mode.SAFE
    assert len(seen) == 2


def _document(stored: str, raw_topic: str) -> str:
    """The stored checkpoint document ``stored`` with ``topic`` replaced by raw JSON text."""
    doc = json.loads(stored)
    doc["values"]["topic"] = "@@topic@@"
    return json.dumps(doc).replace('"@@topic@@"', raw_topic)


async def scenario_damaged_documents_read_as_corrupt_checkpoints(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Documents too deep, ints too long or unknown names read as CorruptCheckpointError, only."""
    saver = make_checkpointer()
    graph = _writing(saver, {"topic": "x"})
    await graph.ainvoke({"log": []}, thread_id="t")
    snaps = await _history(graph, "t")
    latest = str(snaps[0].config["configurable"]["checkpoint_id"])
    record = await saver.aget("t")
    assert record is not None
    level = f"{Level.__module__}.{Level.__qualname__}"
    damaged = [
        "[" * 100_000 + "]" * 100_000,
        _document(record.checkpoint.data, "[" * 100_000 + "]" * 100_000),
        _document(record.checkpoint.data, "[" * 3000 + "]" * 3000),
        _document(record.checkpoint.data, "9" * 5000),
        _document(record.checkpoint.data, '{"__pyctx__": "enum", "type": "gone.Gone", "value": 1}'),
        _document(
            record.checkpoint.data, f'{{"__pyctx__": "enum", "type": "{level}", "value": 9}}'
        ),
        _document(record.checkpoint.data, '{"__pyctx__": "tuple"}'),
    ]
    for text in damaged:
        await make_checkpointer.corrupt("t", latest, text=text)
        err = await _raises(CheckpointError, graph.aget_state("t"))
        assert isinstance(err, CorruptCheckpointError), err
        assert (err.thread_id, err.checkpoint_id) == ("t", latest), err
        assert f"checkpoint {latest!r} of thread 't' is corrupt" in str(err), err
    older = await graph.aget_state(snaps[1].config)
    assert older.values == {"log": []}


async def scenario_failing_reducer_names_the_key_and_the_node(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A failing reducer raises InvalidUpdateError naming key and node; the thread is unchanged."""
    saver = make_checkpointer()
    graph = _writing(saver, {"log": ("a", "tuple")})
    err = await _raises(InvalidUpdateError, graph.ainvoke({"log": ["x"]}, thread_id="t"))
    assert (err.key, err.node) == ("log", "write"), err
    assert isinstance(err.__cause__, TypeError), err.__cause__
    assert "reducer add of state key 'log' failed on the update of node 'write'" in str(err), err
    assert 'can only concatenate list (not "tuple") to list' in str(err), err
    before = await _history(graph, "t")
    assert before[0].values == {"log": ["x"]}
    config = {"configurable": {"thread_id": "t"}}
    err = await _raises(InvalidUpdateError, graph.aupdate_state(config, {"log": (1,)}, "write"))
    assert (err.key, err.node) == ("log", "write"), err
    err = await _raises(InvalidUpdateError, graph.ainvoke({"log": ("y",)}, thread_id="new"))
    assert (err.key, err.node) == ("log", "__start__"), err
    assert "state key 'log' failed on the input" in str(err), err
    assert await _history(graph, "t") == before
    # The input is stored as the __start__ task's write, as LangGraph stores it; none applied.
    assert [s.values for s in await _history(graph, "new")] == [{"log": []}]


async def scenario_node_error_text_with_a_lone_surrogate_is_stored(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A node error whose repr holds a lone surrogate reaches the caller and is stored as it is."""

    class NameReadError(ValueError):
        def __repr__(self) -> str:  # a repr that keeps the text unescaped
            return f"NameReadError: {self}"

    def fail(state: State) -> dict[str, Any]:
        raise NameReadError("cannot read name b'\\xff' as \udcff")

    saver = make_checkpointer()
    graph = StateGraph(State).add_node("fail", fail).add_edge(START, "fail")
    compiled = graph.compile(checkpointer=saver)
    err = await _raises(ValueError, compiled.ainvoke({"log": []}, thread_id="t"))
    assert str(err) == "cannot read name b'\\xff' as \udcff"
    state = await _writing(make_checkpointer(), {}).aget_state("t")
    assert [t.error for t in state.tasks] == ["NameReadError: cannot read name b'\\xff' as \udcff"]


async def scenario_ids_with_a_lone_surrogate_are_refused_before_the_storage(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A thread or checkpoint id with a lone surrogate is refused naming it; nothing is stored."""
    saver = make_checkpointer()
    graph = _writing(saver, {"log": ["w"]})
    bad = "t\ud800"
    calls: list[Awaitable[Any]] = [
        graph.ainvoke({"log": []}, thread_id=bad),
        graph.aget_state({"configurable": {"thread_id": bad}}),
        graph.aupdate_state({"configurable": {"thread_id": bad}}, {"log": ["u"]}),
        graph.aget_state({"configurable": {"thread_id": "t", "checkpoint_id": bad}}),
    ]
    for call in calls:
        err = await _raises(ArgumentValueError, call)
        assert "lone surrogate '\\ud800' at index 1" in str(err), err
    assert await saver.aget("t") is None
