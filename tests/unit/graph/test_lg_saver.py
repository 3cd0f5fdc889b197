"""LangGraph's saver interface: pyctx_web's savers answer it, and a user's own saver runs graphs.

The async forms are what langgraph-checkpoint-conformance checks (the suites tier); these
tests cover the sync forms, a graph run on the LangGraph-named savers, and a
``BaseCheckpointSaver`` subclass of the user's own as a graph's checkpointer.
"""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Annotated, Any, TypedDict

import pytest

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph._lgsaver.memory import InMemorySaver
from pyctx_web.graph._lgsaver.sqlite import SqliteSaver
from pyctx_web.graph._lgsaver.types import (
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointTuple,
    empty_checkpoint,
)
from pyctx_web.graph.types import Command, interrupt


class Answers(TypedDict):
    answers: Annotated[list[str], operator.add]


def _asking_graph(checkpointer: Any) -> Any:
    def ask(state: Answers) -> dict[str, Any]:
        return {"answers": [interrupt("name?")]}

    def greet(state: Answers) -> dict[str, Any]:
        return {"answers": [f"hello {state['answers'][-1]}"]}

    return (
        StateGraph(Answers)
        .add_node("ask", ask)
        .add_node("greet", greet)
        .add_edge(START, "ask")
        .add_edge("ask", "greet")
        .compile(checkpointer=checkpointer)
    )


def _config(thread: str, checkpoint_id: str | None = None, ns: str = "") -> dict[str, Any]:
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


def test_sync_forms_put_read_list_and_delete(saver: Any) -> None:
    """put, put_writes, get_tuple, get, list (filter, before, limit) and delete_thread work."""
    first = empty_checkpoint()
    first["channel_values"] = {"a": [1, 2]}
    first["channel_versions"] = {"a": saver.get_next_version(None, None)}
    stored = saver.put(_config("t"), first, {"source": "input", "step": -1}, {"a": 1})
    assert stored == _config("t", first["id"])
    saver.put_writes(stored, [("a", {"x": 1}), ("__interrupt__", "why")], "task1")
    second = empty_checkpoint()
    saver.put(stored, second, {"source": "loop", "step": 0}, {})
    saver.put(_config("t", ns="child:1"), empty_checkpoint(), {"source": "loop", "step": 0}, {})

    found = saver.get_tuple(stored)
    assert found.checkpoint["channel_values"] == {"a": [1, 2]}
    assert found.pending_writes == [("task1", "a", {"x": 1}), ("task1", "__interrupt__", "why")]
    assert saver.get(_config("t"))["id"] == second["id"]
    assert saver.get_tuple(_config("t")).parent_config == stored
    ids = [t.checkpoint["id"] for t in saver.list(_config("t"))]
    assert ids == [second["id"], first["id"]]
    assert [t.metadata["source"] for t in saver.list(_config("t"), filter={"step": -1})] == [
        "input"
    ]
    assert [t.checkpoint["id"] for t in saver.list(_config("t"), before=_config("t", ids[0]))] == [
        first["id"]
    ]
    assert len(list(saver.list({"configurable": {"thread_id": "t"}}, limit=5))) == 3
    saver.delete_thread("t")
    assert saver.get_tuple(_config("t")) is None
    assert saver.get_tuple(_config("t", ns="child:1")) is None


@pytest.mark.asyncio
async def test_a_graph_runs_and_resumes_on_the_langgraph_named_savers(saver: Any) -> None:
    """The savers langgraph.checkpoint.memory/.sqlite name still store a graph's own runs."""
    graph = _asking_graph(saver)
    assert "__interrupt__" in await graph.ainvoke({"answers": []}, thread_id="g")
    done = await graph.ainvoke(Command(resume="Ada"), thread_id="g")
    assert done["answers"] == ["Ada", "hello Ada"]


@pytest.mark.asyncio
async def test_a_graphs_own_checkpoints_read_through_langgraphs_interface(saver: Any) -> None:
    """get_tuple and list show a graph's checkpoints, newest first, with values and metadata."""
    graph = _asking_graph(saver)
    await graph.ainvoke({"answers": []}, thread_id="v")
    await graph.ainvoke(Command(resume="Ada"), thread_id="v")
    latest = await saver.aget_tuple(_config("v"))
    assert latest.checkpoint["channel_values"]["answers"] == ["Ada", "hello Ada"]
    history = [t async for t in saver.alist(_config("v"))]
    assert history[0].checkpoint["id"] == latest.checkpoint["id"]
    assert [t.metadata["step"] for t in history] == sorted(
        (t.metadata["step"] for t in history), reverse=True
    )
    assert history[1].config == latest.parent_config


class DictSaver(BaseCheckpointSaver[int]):
    """A user's own LangGraph saver: async methods over dicts, as a LangGraph user writes one."""

    def __init__(self) -> None:
        super().__init__()
        self.saved: dict[tuple[str, str], list[CheckpointTuple]] = {}
        self.writes: dict[str, list[tuple[str, str, Any]]] = {}

    def _key(self, config: dict[str, Any]) -> tuple[str, str]:
        return config["configurable"]["thread_id"], config["configurable"].get("checkpoint_ns", "")

    async def aput(
        self, config: dict[str, Any], checkpoint: Checkpoint, metadata: Any, new_versions: Any
    ) -> dict[str, Any]:
        thread, ns = self._key(config)
        parent = config["configurable"].get("checkpoint_id")
        mine = _config(thread, checkpoint["id"], ns)
        before = None if parent is None else _config(thread, parent, ns)
        self.saved.setdefault((thread, ns), []).append(
            CheckpointTuple(mine, checkpoint, metadata, before)
        )
        return mine

    async def aput_writes(
        self,
        config: dict[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        kept = self.writes.setdefault(config["configurable"]["checkpoint_id"], [])
        kept.extend((task_id, channel, value) for channel, value in writes)

    def _with_writes(self, found: CheckpointTuple) -> CheckpointTuple:
        return found._replace(pending_writes=list(self.writes.get(found.checkpoint["id"], [])))

    async def aget_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        saved = self.saved.get(self._key(config), [])
        wanted = config["configurable"].get("checkpoint_id")
        for found in reversed(saved):
            if wanted is None or found.checkpoint["id"] == wanted:
                return self._with_writes(found)
        return None

    async def alist(
        self,
        config: dict[str, Any] | None,
        *,
        filter: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        assert config is not None
        found = [self._with_writes(t) for t in reversed(self.saved.get(self._key(config), []))]
        if before is not None:
            ids = [t.checkpoint["id"] for t in found]
            found = found[ids.index(before["configurable"]["checkpoint_id"]) + 1 :]
        for item in found[:limit]:
            yield item

    async def adelete_thread(self, thread_id: str) -> None:
        for key in [k for k in self.saved if k[0] == thread_id]:
            del self.saved[key]


@pytest.mark.asyncio
async def test_a_users_own_saver_is_a_graphs_checkpointer() -> None:
    """A BaseCheckpointSaver subclass keeps a run's checkpoints, its interrupt and history."""
    user_saver = DictSaver()
    graph = _asking_graph(user_saver)
    paused = await graph.ainvoke({"answers": []}, thread_id="u")
    assert [i.value for i in paused["__interrupt__"]] == ["name?"]
    assert user_saver.saved[("u", "")]  # the run's checkpoints are in the user's saver
    done = await graph.ainvoke(Command(resume="Lin"), thread_id="u")
    assert done["answers"] == ["Lin", "hello Lin"]
    history = [s async for s in graph.aget_state_history("u")]
    assert len(history) == len(user_saver.saved[("u", "")])
    await graph.checkpointer.adelete_thread("u")
    assert ("u", "") not in user_saver.saved


class SyncDictSaver(DictSaver):
    """A user's saver written with the sync forms only."""

    def put(self, *args: Any) -> dict[str, Any]:
        stored: dict[str, Any] = _run(DictSaver.aput(self, *args))
        return stored

    def put_writes(self, *args: Any) -> None:
        _run(DictSaver.aput_writes(self, *args))

    def get_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        found: CheckpointTuple | None = _run(DictSaver.aget_tuple(self, config))
        return found

    def list(self, config: Any, **options: Any) -> Iterator[CheckpointTuple]:
        async def gather() -> list[CheckpointTuple]:
            return [t async for t in DictSaver.alist(self, config, **options)]

        return iter(_run(gather()))

    aput = BaseCheckpointSaver.aput
    aput_writes = BaseCheckpointSaver.aput_writes
    aget_tuple = BaseCheckpointSaver.aget_tuple
    alist = BaseCheckpointSaver.alist


def _run(coroutine: Any) -> Any:
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise AssertionError("the dict saver never waits")


@pytest.mark.asyncio
async def test_a_users_sync_only_saver_is_a_graphs_checkpointer() -> None:
    """A saver with only put/get_tuple/list/put_writes runs and resumes a graph."""
    graph = _asking_graph(SyncDictSaver())
    await graph.ainvoke({"answers": []}, thread_id="s")
    done = await graph.ainvoke(Command(resume="Bo"), thread_id="s")
    assert done["answers"] == ["Bo", "hello Bo"]


def test_anything_else_is_refused_as_a_checkpointer() -> None:
    """compile(checkpointer=...) refuses an object that is no saver, naming its type."""
    with pytest.raises(
        ArgumentTypeError,
        match=r"^checkpointer must be a checkpoint saver \(InMemorySaver, SqliteSaver\.\.\.\),"
        r" not 'object'$",
    ):
        _asking_graph(object())
