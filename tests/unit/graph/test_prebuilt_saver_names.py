"""The saver names langgraph-prebuilt's tests and LangGraph's add-on savers import.

langgraph-prebuilt's test setup subclasses ``langgraph.checkpoint.memory.InMemorySaver``
with a ``PersistentDict`` factory, copies checkpoints with
``langgraph.pregel._checkpoint.copy_checkpoint`` and imports the Postgres add-on and
``langgraph.checkpoint.sqlite.aio``; the add-on imports more of
``langgraph.checkpoint.base`` and ``.serde``.
"""

from __future__ import annotations

import operator
import pickle
import subprocess
import sys
import textwrap
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph._lgsaver.memory import InMemorySaver, PersistentDict
from pyctx_web.graph._lgsaver.names import (
    copy_checkpoint,
    get_serializable_checkpoint_metadata,
    writes_sort_key,
)
from pyctx_web.graph._lgsaver.sqlite_aio import AsyncSqliteSaver
from pyctx_web.graph._lgsaver.types import BaseCheckpointSaver, empty_checkpoint
from pyctx_web.graph.errors import GraphBubbleUp, GraphInterrupt, ParentCommand

ROOT = Path(__file__).resolve().parents[3]


class Counter(TypedDict):
    count: Annotated[int, operator.add]


def _counting_graph(checkpointer: Any) -> Any:
    builder = StateGraph(Counter)
    builder.add_node("add", lambda state: {"count": 1})
    builder.add_edge(START, "add")
    return builder.compile(checkpointer=checkpointer)


def test_the_names_import_under_langgraphs_module_names() -> None:
    """After install_as_langgraph(), the add-on's and the suite's saver names import."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                from pyctx_web.graph import install_as_langgraph
                install_as_langgraph()
                from langgraph.checkpoint.base import (
                    BaseCheckpointSaver, DeltaChannelHistory, SerializerProtocol,
                    get_serializable_checkpoint_metadata, writes_sort_key,
                )
                from langgraph.checkpoint.serde.base import SerializerProtocol
                from langgraph.checkpoint.serde.types import TASKS, _DeltaSnapshot
                from langgraph.checkpoint.memory import InMemorySaver, PersistentDict
                from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
                from langgraph.pregel._checkpoint import copy_checkpoint
                from langgraph.errors import GraphBubbleUp
                class Saver(BaseCheckpointSaver[str]):
                    pass
                print(TASKS, AsyncSqliteSaver.__name__, copy_checkpoint.__name__)
                """
            ),
        ],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["__pregel_tasks", "AsyncSqliteSaver", "copy_checkpoint"]


def test_a_persistent_dict_factory_keeps_the_threads_in_its_file(tmp_path: Path) -> None:
    """A PersistentDict factory makes the saver write its threads to the file as its block ends."""
    path = tmp_path / "threads.pickle"
    path.touch()
    closed: list[str] = []
    with InMemorySaver(factory=partial(PersistentDict, filename=str(path))) as saver:
        saver.stack.callback(closed.append, "closed")
        graph = _counting_graph(saver)
        config = {"configurable": {"thread_id": "t"}}
        assert graph.invoke({"count": 0}, config) == {"count": 1}
        assert graph.invoke({"count": 0}, config) == {"count": 2}
    assert closed == ["closed"]
    with path.open("rb") as file:
        assert list(pickle.load(file)) == ["t"]
    again = PersistentDict(filename=str(path))
    again.load()
    assert list(again) == ["t"]


def test_the_serde_given_is_the_savers() -> None:
    """InMemorySaver(serde=...) keeps the serializer given, as LangGraph's does."""

    class Serde:
        def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
            return "repr", repr(obj).encode()

        def loads_typed(self, data: tuple[str, bytes]) -> Any:
            return data[1].decode()

    serde = Serde()
    saver = InMemorySaver(serde=serde)
    assert saver.serde is serde
    assert saver.serde.dumps_typed(1) == ("repr", b"1")


def test_copy_checkpoint_shares_no_dict_with_the_original() -> None:
    """copy_checkpoint's values, versions and seen versions change apart from the original's."""
    original = empty_checkpoint()
    original["versions_seen"] = {"node": {"a": 1}}
    copy = copy_checkpoint(original)
    copy["channel_values"]["a"] = 1
    copy["channel_versions"]["a"] = 2
    copy["versions_seen"]["node"]["a"] = 3
    assert original["channel_values"] == {}
    assert original["channel_versions"] == {}
    assert original["versions_seen"] == {"node": {"a": 1}}
    assert copy["id"] == original["id"]


def test_serializable_metadata_takes_the_configs_plain_values() -> None:
    """The config's plain metadata and configurable values join the metadata, not its internals."""
    config = {
        "metadata": {"user": "ann\x00", "nested": {"a": 1}},
        "configurable": {"thread_id": "t", "__secret": "x", "retries": 2, "step": 9},
    }
    metadata = {"source": "loop", "step": 1, "writes": {"a": 1}}
    merged = get_serializable_checkpoint_metadata(config, metadata)  # type: ignore[arg-type]
    assert merged == {"source": "loop", "step": 1, "user": "ann", "retries": 2}


def test_writes_sort_by_task_path_then_id_then_index() -> None:
    """writes_sort_key orders a step's writes by task path, task id, then index."""
    keys = [writes_sort_key("b", "a", 0), writes_sort_key("a", "z", 1), writes_sort_key("a", "z")]
    assert sorted(keys) == [("a", "z", 0), ("a", "z", 1), ("b", "a", 0)]


def test_savers_take_langgraphs_type_parameter() -> None:
    """BaseCheckpointSaver[str] is a base class, as add-on savers declare theirs."""

    class Saver(BaseCheckpointSaver[str]):
        pass

    assert issubclass(Saver, BaseCheckpointSaver)


@pytest.mark.asyncio
async def test_the_async_sqlite_saver_opens_and_closes_in_async_code(tmp_path: Path) -> None:
    """AsyncSqliteSaver.from_conn_string is an async context manager whose saver runs graphs."""
    path = str(tmp_path / "db.sqlite")
    async with AsyncSqliteSaver.from_conn_string(path) as saver:
        await saver.setup()
        graph = _counting_graph(saver)
        config = {"configurable": {"thread_id": "t"}}
        assert await graph.ainvoke({"count": 0}, config) == {"count": 1}
    async with AsyncSqliteSaver(path) as saver:
        found = await saver.aget_tuple(config)
        assert found is not None
        assert found.checkpoint["channel_values"] == {"count": 1}


def test_a_parents_command_bubbles_up_and_an_interrupt_is_no_exception() -> None:
    """ParentCommand is a GraphBubbleUp (an Exception); GraphInterrupt stays a BaseException."""
    assert issubclass(ParentCommand, GraphBubbleUp)
    assert issubclass(GraphBubbleUp, Exception)
    assert not issubclass(GraphInterrupt, Exception)
