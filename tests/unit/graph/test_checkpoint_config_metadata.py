"""Checkpoint metadata carries the run config's ``metadata`` and plain ``configurable`` values."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypedDict

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph._engine.run_metadata import config_metadata
from pyctx_web.graph._lgsaver.memory import InMemorySaver as LgInMemorySaver
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver


class State(TypedDict):
    n: int


def _graph(checkpointer: Any) -> Any:
    return (
        StateGraph(State)
        .add_node("inc", lambda s: {"n": s["n"] + 1})
        .add_edge(START, "inc")
        .compile(checkpointer=checkpointer)
    )


CONFIG: dict[str, Any] = {
    "configurable": {
        "thread_id": "t",
        "user_id": "u-1",
        "shared": "from configurable",
        "limit": 3,
        "ratio": 0.5,
        "flag": True,
        "client": object(),
        "items": [1],
        "__secret": "x",
        "checkpoint_ns": "",
        "step": 99,
    },
    "metadata": {"source_app": "web", "shared": "from metadata", "tags": {"a": 1}},
}
EXPECTED_EXTRA = {
    "source_app": "web",
    "shared": "from metadata",
    "user_id": "u-1",
    "limit": 3,
    "ratio": 0.5,
    "flag": True,
}


@pytest.fixture(params=["memory", "sqlite"])
def saver(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    if request.param == "memory":
        yield InMemorySaver()
    else:
        with SqliteSaver.from_conn_string(str(tmp_path / "cp.db")) as sqlite:
            yield sqlite


@pytest.mark.asyncio
async def test_every_checkpoint_of_a_run_has_its_config_values(saver: Any) -> None:
    """Each checkpoint of a run adds the config's plain metadata then configurable values."""
    graph = _graph(saver)
    await graph.ainvoke({"n": 1}, CONFIG)
    history = [s.metadata async for s in graph.aget_state_history("t")]
    assert history == [
        {"source": "loop", "step": 1, "parents": {}, **EXPECTED_EXTRA},
        {"source": "loop", "step": 0, "parents": {}, **EXPECTED_EXTRA},
        {"source": "input", "step": -1, "parents": {}, **EXPECTED_EXTRA},
    ]
    assert (await graph.aget_state("t")).metadata == history[0]


@pytest.mark.asyncio
async def test_each_checkpoint_keeps_the_values_of_the_run_that_wrote_it(saver: Any) -> None:
    """A later run's or update's config values go on its own checkpoints only."""
    graph = _graph(saver)
    await graph.ainvoke({"n": 1}, {"configurable": {"thread_id": "t", "who": "first"}})
    await graph.ainvoke({"n": 5}, {"configurable": {"thread_id": "t"}, "metadata": {"who": "2"}})
    await graph.aupdate_state({"configurable": {"thread_id": "t", "by": "editor"}}, {"n": 0})
    history = [s.metadata async for s in graph.aget_state_history("t")]
    assert [(m["source"], m.get("who"), m.get("by")) for m in history] == [
        ("update", None, "editor"),
        ("loop", "2", None),
        ("loop", "2", None),
        ("input", "2", None),
        ("loop", "first", None),
        ("loop", "first", None),
        ("input", "first", None),
    ]


@pytest.mark.asyncio
async def test_a_run_without_config_values_has_only_its_own_metadata() -> None:
    """Without metadata or plain configurable values a checkpoint's metadata is source, step
    and parents."""
    graph = _graph(InMemorySaver())
    await graph.ainvoke({"n": 1}, thread_id="t")
    assert (await graph.aget_state("t")).metadata == {"source": "loop", "step": 1, "parents": {}}


@pytest.mark.asyncio
async def test_the_langgraph_interface_shows_the_graphs_metadata_once() -> None:
    """A graph's checkpoint read through LangGraph's saver interface carries the same values."""
    saver = LgInMemorySaver()
    graph = _graph(saver)
    await graph.ainvoke({"n": 1}, CONFIG)
    found = await saver.aget_tuple({"configurable": {"thread_id": "t"}})
    assert found is not None
    assert found.metadata == {"source": "loop", "step": 1, "parents": {}, **EXPECTED_EXTRA}


def test_config_metadata_strips_nul_and_is_none_when_empty() -> None:
    """Text loses its NUL characters, and a config with nothing to copy gives ``None``."""
    assert config_metadata({"metadata": {"a": "x\x00y"}}) == {"a": "xy"}
    assert config_metadata({"configurable": {"thread_id": "t", "__k": 1}}) is None
