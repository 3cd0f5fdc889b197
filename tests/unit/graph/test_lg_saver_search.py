"""LangGraph's saver interface beyond the conformance suite: metadata, search, history, serde.

What langgraph-checkpoint's own memory tests check of InMemorySaver's public API, on the
LangGraph-named memory and SQLite savers: the config's metadata joins a checkpoint's,
``list(None, filter=...)`` searches every thread, ``get_delta_channel_history`` walks a
checkpoint's ancestors (on pyctx_web's savers and, by the base class, on a user's own),
and a ``serde`` given to the saver is the one its values go through.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from pyctx_web.errors import UsageError
from pyctx_web.graph._lgsaver.base import create_checkpoint
from pyctx_web.graph._lgsaver.jsonplus import JsonPlusSerializer
from pyctx_web.graph._lgsaver.memory import InMemorySaver
from pyctx_web.graph._lgsaver.saver import LangGraphSaver
from pyctx_web.graph._lgsaver.sqlite import SqliteSaver
from pyctx_web.graph._lgsaver.types import BaseCheckpointSaver, CheckpointTuple, empty_checkpoint
from pyctx_web.graph.checkpoint import memory


@dataclasses.dataclass
class Point:
    x: int
    y: int


def _thread(thread: str, ns: str = "", checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": thread, "checkpoint_ns": ns}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


@pytest.fixture(params=["memory", "sqlite"])
def saver(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "memory":
        yield InMemorySaver()
    else:
        with SqliteSaver.from_conn_string(":memory:") as sqlite:
            yield sqlite


def test_the_configs_metadata_joins_the_checkpoints(saver: Any) -> None:
    """put() keeps the config's plain metadata and configurable values beside the checkpoint's."""
    config = {
        "configurable": {"thread_id": "t", "checkpoint_ns": "", "__hidden": "x", "user": "ann"},
        "metadata": {"run_id": "r1"},
    }
    saver.put(config, empty_checkpoint(), {"source": "loop", "step": 1, "writes": {"a": 1}}, {})
    found = saver.get_tuple(config)
    assert found.metadata == {
        "source": "loop",
        "step": 1,
        "writes": {"a": 1},
        "run_id": "r1",
        "user": "ann",
    }


def test_list_without_a_config_searches_every_thread_by_metadata(saver: Any) -> None:
    """list(None, filter=...) finds matching checkpoints in every thread and namespace."""
    saver.put(_thread("a"), empty_checkpoint(), {"source": "input", "score": 1}, {})
    saver.put(_thread("b"), empty_checkpoint(), {"source": "loop", "writes": {"k": "v"}}, {})
    saver.put(_thread("b", "inner"), empty_checkpoint(), {}, {})
    assert len(list(saver.list(None))) == 3
    [found] = saver.list(None, filter={"source": "loop", "writes": {"k": "v"}})
    assert found.config["configurable"]["thread_id"] == "b"
    assert list(saver.list(None, filter={"source": "update"})) == []
    assert len(list(saver.list(None, limit=2))) == 2


@pytest.mark.asyncio
async def test_alist_without_a_config_searches_every_thread(saver: Any) -> None:
    """alist(None, filter=...) is the async form of the search across threads."""
    saver.put(_thread("a"), empty_checkpoint(), {"source": "input"}, {})
    saver.put(_thread("b"), empty_checkpoint(), {"source": "input"}, {})
    found = [t async for t in saver.alist(None, filter={"source": "input"})]
    assert sorted(t.config["configurable"]["thread_id"] for t in found) == ["a", "b"]


def test_a_saver_without_a_thread_listing_names_the_config_it_needs() -> None:
    """A saver that cannot list its threads refuses list(None), naming what to give."""

    class OneThreadSaver(LangGraphSaver, memory.InMemorySaver):  # type: ignore[misc]
        """pyctx_web's memory saver without the thread listing of its LangGraph-named form."""

    with pytest.raises(
        UsageError,
        match=r"^OneThreadSaver lists one thread at a time: give list\(\) a config naming "
        r"its thread_id$",
    ):
        list(OneThreadSaver().list(None))


def _chain(saver: Any) -> dict[str, Any]:
    """Three checkpoints: a root holding ``log``'s value, then two steps writing to it."""
    root = empty_checkpoint()
    root["channel_values"] = {"log": ["seed"]}
    first = saver.put(_thread("t"), root, {}, {"log": 1})
    saver.put_writes(first, [("log", "a"), ("other", 0)], "task1")
    second = saver.put(first, empty_checkpoint(), {}, {})
    saver.put_writes(second, [("log", "b")], "task2")
    third: dict[str, Any] = saver.put(second, empty_checkpoint(), {}, {})
    saver.put_writes(third, [("log", "pending")], "task3")
    return third


def test_delta_channel_history_walks_the_ancestors(saver: Any) -> None:
    """The history of a channel: its ancestors' writes oldest first, seeded by the stored value."""
    third = _chain(saver)
    history = saver.get_delta_channel_history(config=third, channels=["log", "none"])
    assert history == {
        "log": {
            "writes": [("task1", "log", "a"), ("task2", "log", "b")],
            "seed": ["seed"],
        },
        "none": {"writes": []},
    }
    latest = saver.get_delta_channel_history(config=_thread("t"), channels=["log"])
    assert latest == {"log": history["log"]}


class ListSaver(BaseCheckpointSaver[int]):
    """A user's saver with get_tuple only, over tuples kept by id."""

    def __init__(self, tuples: list[CheckpointTuple]) -> None:
        super().__init__()
        self.by_id = {t.config["configurable"]["checkpoint_id"]: t for t in tuples}
        self.read: list[str] = []

    def get_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        wanted = config["configurable"]["checkpoint_id"]
        self.read.append(wanted)
        return self.by_id.get(wanted)

    async def aget_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        return self.get_tuple(config)


@pytest.mark.asyncio
async def test_a_users_saver_gets_delta_channel_history_from_the_base_class() -> None:
    """The base class walks a user's saver by get_tuple (and aget_tuple), stopping at a seed."""
    ours = InMemorySaver()
    third = _chain(ours)
    users = ListSaver(list(ours.list(_thread("t"))))
    expected = ours.get_delta_channel_history(config=third, channels=["log"])
    assert users.get_delta_channel_history(config=third, channels=["log"]) == expected
    assert await users.aget_delta_channel_history(config=third, channels=["log"]) == expected
    assert users.get_delta_channel_history(config=third, channels=[]) == {}


def test_the_savers_serde_is_the_one_its_values_go_through() -> None:
    """InMemorySaver(serde=...) stores channel values and writes through that serializer."""
    saver: Any = InMemorySaver(serde=JsonPlusSerializer(allowed_msgpack_modules=[Point]))
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"p": Point(1, 2), "s": {1, 2}}
    config = saver.put(_thread("t"), checkpoint, {}, {"p": 1, "s": 1})
    saver.put_writes(config, [("p", Point(3, 4))], "task")
    found = saver.get_tuple(config)
    assert found.checkpoint["channel_values"] == {"p": Point(1, 2), "s": {1, 2}}
    assert found.pending_writes == [("task", "p", Point(3, 4))]


def test_with_allowlist_reads_the_same_threads_with_a_wider_allowlist(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A strict serializer reads a class it does not allow as its fields; with_allowlist's copy
    of the saver reads the same checkpoint back as the class."""
    saver: Any = InMemorySaver(serde=JsonPlusSerializer(allowed_msgpack_modules=None))
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"p": Point(1, 2)}
    config = saver.put(_thread("t"), checkpoint, {}, {"p": 1})
    proxy = saver.with_allowlist([(__name__, "Point")])
    caplog.set_level(logging.WARNING, logger="langgraph.checkpoint.serde.jsonplus")
    assert saver.get_tuple(config).checkpoint["channel_values"]["p"] == {"x": 1, "y": 2}
    assert "Blocked deserialization of" in caplog.text
    assert proxy.get_tuple(config).checkpoint["channel_values"]["p"] == Point(1, 2)
    assert InMemorySaver().with_allowlist([Point]).serde is InMemorySaver.serde


def test_create_checkpoint_follows_a_checkpoint_with_a_new_id() -> None:
    """create_checkpoint keeps the values and versions of the checkpoint it follows."""
    first = empty_checkpoint()
    first["channel_values"] = {"a": 1}
    first["channel_versions"] = {"a": 1}
    made = create_checkpoint(first, None, 1)
    assert made["id"] > first["id"]
    assert (made["channel_values"], made["channel_versions"]) == ({"a": 1}, {"a": 1})
    assert create_checkpoint(first, None, 1, id="x")["id"] == "x"
