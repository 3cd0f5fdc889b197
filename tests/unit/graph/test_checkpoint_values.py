"""What a checkpoint holds, on CPython: the serde's rules in detail, checkpoint errors, reducers.

The behaviour through a graph, on every storage and in Pyodide, is in
tests/scenarios/checkpoint_value_scenarios.py.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Optional, TypedDict

import pytest

from pyctx_web.errors import ArgumentValueError, PyctxError
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph._engine.serde import MAX_DEPTH, MAX_INT_DIGITS, JsonSerde, collect_types
from pyctx_web.graph.checkpoint.base import Checkpointer, StoredCheckpoint, StoredWrite
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.errors import (
    CheckpointError,
    CheckpointExistsError,
    CheckpointNotFoundError,
    CheckpointStorageError,
    CorruptCheckpointError,
    SerializationError,
)
from pyctx_web.graph.message import MessagesState, RemoveMessage

from .helpers import SUPPORTED


class Level(enum.IntEnum):
    """An IntEnum."""

    LOW = 1


class Color(enum.StrEnum):
    """A StrEnum."""

    RED = "red"


class Mode(enum.Enum):
    """A plain Enum named only through Literal."""

    FAST = "fast"


class Perm(enum.Flag):
    """A Flag, whose combinations are members too."""

    READ = 1
    WRITE = 2


class Shape(enum.Enum):
    """An Enum whose value JSON cannot hold."""

    SET = frozenset({1})


@dataclasses.dataclass
class Box:
    """A dataclass holding an enum."""

    perm: Perm
    items: tuple[Any, ...] = ()


class Inner(TypedDict):
    """A TypedDict nested in a list, naming an enum."""

    color: Color
    again: list[Inner]


class State(TypedDict, total=False):
    """A state naming enums in every way the schema can."""

    level: Optional[Level]  # noqa: UP045 - the typing form is collected too
    inner: list[Inner]
    mode: Literal[Mode.FAST]
    box: Box
    topic: Any


def _refusal(serde: JsonSerde, value: Any) -> SerializationError:
    with pytest.raises(SerializationError) as info:
        serde.encode(value, key="topic")
    return info.value


def test_checkpoint_errors_build_their_messages_from_their_data() -> None:
    """Each checkpoint error states its fixed message from its data and keeps that data."""
    cases: list[tuple[CheckpointError, str]] = [
        (CheckpointNotFoundError("t", "c"), "thread 't' has no checkpoint 'c'"),
        (
            CheckpointNotFoundError("t", "c", action="store writes"),
            "cannot store writes: thread 't' has no checkpoint 'c'",
        ),
        (CheckpointExistsError("t", "c"), "checkpoint 'c' already exists in thread 't'"),
        (
            CorruptCheckpointError("t", "c", "bad JSON"),
            "checkpoint 'c' of thread 't' is corrupt: bad JSON",
        ),
        (
            CheckpointStorageError("delete thread 't'", "disk full", thread_id="t"),
            "cannot delete thread 't': disk full",
        ),
        (
            SerializationError(key="k", path="k[0]", type_name="set", problem="not good"),
            "cannot checkpoint state key 'k' at k[0]: 'set' is not good",
        ),
    ]
    for err, message in cases:
        assert str(err) == message
        assert isinstance(err, CheckpointError)
        assert isinstance(err, PyctxError)
        assert err.thread_id in ("t", None)
    assert isinstance(cases[0][0], LookupError)
    assert isinstance(cases[-1][0], TypeError)
    corrupt = cases[3][0]
    assert isinstance(corrupt, CorruptCheckpointError)
    assert (corrupt.checkpoint_id, corrupt.detail) == ("c", "bad JSON")


def test_the_schema_names_enums_and_dataclasses_at_any_depth() -> None:
    """Enums named through Optional, Literal, nested TypedDicts and dataclass fields are known."""
    names = {cls.__qualname__ for cls in collect_types(State).values()}
    assert names == {"Level", "Color", "Mode", "Box", "Perm"}
    serde = JsonSerde.for_schema(State)
    value = {"l": Level.LOW, "c": Color.RED, "m": Mode.FAST, "b": Box(Perm.READ | Perm.WRITE)}
    back = serde.decode(serde.loads(serde.dumps(serde.encode(value, key="topic"))))
    assert back == value
    assert [type(v) for v in back.values()] == [Level, Color, Mode, Box]
    assert back["b"].perm is Perm.READ | Perm.WRITE


def test_the_path_names_the_refused_part() -> None:
    """The error's path goes through dict keys, indexes, dataclass fields and enum values."""
    serde = JsonSerde([Box, Perm, Shape])
    err = _refusal(serde, {"a": [1, Box(Perm.READ, ("x", {2}))]})
    assert (err.path, err.type_name) == ("topic['a'][1].items[1]", "set")
    err = _refusal(serde, [Shape.SET])
    assert (err.path, err.type_name) == ("topic[0].value", "frozenset")
    err = _refusal(serde, {1: "int key"})
    assert (err.path, err.type_name) == ("topic[1]", "int")
    assert str(err) == (
        f"cannot checkpoint state key 'topic' at topic[1]: 'int' is a dict key that is not a "
        f"str{SUPPORTED}"
    )


def test_subclasses_of_json_types_come_back_plain_and_are_checked() -> None:
    """A str, int or float subclass reads back as the plain type, under the same limits."""

    class Name(str):
        pass

    class Big(int):
        pass

    class Ratio(float):
        pass

    serde = JsonSerde()
    stored = serde.encode([Name("x"), Big(7), Ratio(0.5)], key="topic")
    back = serde.decode(serde.loads(serde.dumps(stored)))
    assert back == ["x", 7, 0.5]
    assert [type(v) for v in back] == [str, int, float]
    key = "cannot checkpoint state key 'topic'"
    assert str(_refusal(serde, Name("\udc80"))) == (
        f"{key}: {Name.__qualname__!r} is a str holding a lone surrogate (U+DC80 at index 0), "
        "which UTF-8 text cannot store"
    )
    assert str(_refusal(serde, Big(10**MAX_INT_DIGITS))) == (
        f"{key}: {Big.__qualname__!r} is an int of more than 4300 digits, the most every reader "
        "of a checkpoint parses"
    )
    assert str(_refusal(serde, Ratio("inf"))) == (
        f"{key}: {Ratio.__qualname__!r} is a non-finite float{SUPPORTED}"
    )


@pytest.fixture
def digit_limit() -> Iterator[None]:
    """This process's int digit limit lowered to 1000 for the test."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(1000)
    yield
    sys.set_int_max_str_digits(before)


@pytest.mark.usefixtures("digit_limit")
def test_a_lower_process_digit_limit_is_the_limit() -> None:
    """When this process parses fewer digits than 4300, ints beyond its limit are refused."""
    serde = JsonSerde()
    assert serde.encode(10**999, key="n") == 10**999
    err = _refusal(serde, -(10**1000))
    assert str(err) == (
        "cannot checkpoint state key 'topic': 'int' is an int of more than 1000 digits, the most "
        "every reader of a checkpoint parses"
    )
    assert err.type_name == "int"


def test_unknown_stored_types_and_members_do_not_decode() -> None:
    """A stored enum the schema does not name, or not a member of it, is a ValueError on read."""
    stored = JsonSerde([Level]).encode(Level.LOW, key="topic")
    schema = r"is not named by the state schema$"
    with pytest.raises(
        ValueError, match=r"^stored enum '[\w.]*test_checkpoint_values\.Level' " + schema
    ):
        JsonSerde().decode(stored)
    with pytest.raises(
        ValueError, match=r"^stored enum '[\w.]*test_checkpoint_values\.Box' " + schema
    ):
        JsonSerde([Box]).decode({**stored, "type": f"{Box.__module__}.{Box.__qualname__}"})
    with pytest.raises(ValueError, match=r"^cannot rebuild enum 'Level': 42 is not a valid Level$"):
        JsonSerde([Level]).decode({**stored, "value": 42})


def test_text_outside_the_values_with_a_lone_surrogate_is_escaped() -> None:
    """A document whose error text holds a lone surrogate is stored as ASCII and reads back."""
    text = JsonSerde.dumps({"error": "ValueError: \udcff é"})
    assert text.isascii()
    assert JsonSerde.loads(text) == {"error": "ValueError: \udcff é"}
    assert JsonSerde.dumps({"a": "é"}) == '{"a":"é"}'


def test_documents_too_deep_to_parse_safely_are_refused() -> None:
    """Documents nesting deeper than 500 levels are refused unparsed; strings do not count."""
    assert JsonSerde.loads("[" * 500 + "]" * 500) is not None
    for text in ("[" * 501 + "]" * 501, "[" * 100_000, '{"a":' * 2000):
        with pytest.raises(
            ValueError, match=r"^the document nests deeper than 500 levels; it was not parsed$"
        ):
            JsonSerde.loads(text)
    brackets = "[" * 5000 + "{" * 5000
    assert JsonSerde.loads(f'["{brackets}", "\\"{brackets}", "\\\\", ["{brackets}"]]') == [
        brackets,
        f'"{brackets}',
        "\\",
        [brackets],
    ]


def test_values_too_deep_to_rebuild_are_a_value_error() -> None:
    """Decoding a stored value nested beyond Python's recursion limit raises ValueError."""
    value: Any = 1
    for _ in range(sys.getrecursionlimit() * 2):
        value = [value]
    with pytest.raises(ValueError, match=r"^a stored value is nested too deeply to rebuild$"):
        JsonSerde().decode(value)


def test_a_state_value_nests_100_levels_and_a_node_update_one_more() -> None:
    """A state value may nest 100 containers; what holds state values, like an update, one more."""
    serde = JsonSerde()
    value: Any = "x"
    for _ in range(MAX_DEPTH):
        value = [value]
    serde.encode(value, key="topic")
    serde.encode({"topic": value}, key="a", label="the update of node 'a'")
    err = _refusal(serde, [value])
    assert err.path == "topic" + "[0]" * MAX_DEPTH
    assert str(err) == (
        f"cannot checkpoint state key 'topic' at {err.path}: 'list' is nested deeper than 100 "
        "levels, the most a checkpoint holds"
    )


def test_a_value_that_contains_itself_is_too_deep() -> None:
    """A list that contains itself is refused as too deep, not with a RecursionError."""
    loop: list[Any] = []
    loop.append(loop)
    err = _refusal(JsonSerde(), {"loop": loop})
    assert err.path == "topic['loop']" + "[0]" * (MAX_DEPTH - 1)


@pytest.mark.asyncio
async def test_an_add_messages_error_passes_with_a_note(checkpointer: Checkpointer) -> None:
    """add_messages' own error reaches the caller as LangGraph's, with a note naming key, node."""
    graph = (
        StateGraph(MessagesState)
        .add_node("drop", lambda s: {"messages": [RemoveMessage(id="missing")]})
        .add_edge(START, "drop")
        .compile(checkpointer=checkpointer)
    )
    with pytest.raises(ArgumentValueError) as info:
        await graph.ainvoke({"messages": []}, thread_id="t")
    assert str(info.value) == (
        "Attempting to delete a message with an ID that doesn't exist ('missing')"
    )
    assert info.value.__notes__ == [
        "raised by the reducer of state key 'messages' on the update of node 'drop'"
    ]


@pytest.mark.asyncio
async def test_savers_raise_the_checkpoint_error_that_names_the_failure(
    checkpointer: Checkpointer,
) -> None:
    """Duplicate ids, unknown checkpoints and corrupt documents raise their own CheckpointError."""
    first = StoredCheckpoint("t", "c0", None, "2024-01-01T00:00:00+00:00", "{}")
    await checkpointer.aput(first)
    with pytest.raises(CheckpointExistsError):
        await checkpointer.aput(first)
    with pytest.raises(CheckpointNotFoundError) as info:
        await checkpointer.aput_writes("t", "zz", [StoredWrite("a", "result", "1")])
    assert info.value.action == "store writes"
    with pytest.raises(CheckpointNotFoundError):
        [r async for r in checkpointer.alist("t", before="zz")]
    graph = StateGraph(State).add_node("a", lambda s: {}).add_edge(START, "a")
    with pytest.raises(
        CorruptCheckpointError,
        match=r"^checkpoint 'c0' of thread 't' is corrupt: not a checkpoint document of a known "
        r"version$",
    ):
        await graph.compile(checkpointer=checkpointer).aget_state("t")


@pytest.mark.asyncio
async def test_a_failing_sqlite_database_raises_checkpoint_storage_error(tmp_path: Path) -> None:
    """A database that cannot be opened raises CheckpointStorageError saying what was attempted."""
    saver = SqliteSaver(tmp_path / "missing" / "x.db")
    with pytest.raises(CheckpointStorageError) as info:
        await saver.aget("t")
    assert info.value.action.startswith("open checkpoint database")
    assert "unable to open database file" in info.value.detail
