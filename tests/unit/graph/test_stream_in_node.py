"""A graph streamed or invoked from inside a node: a subgraph of the node's task in the streams."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, interrupt


class Trail(TypedDict, total=False):
    """The steps taken."""

    steps: Annotated[list[str], operator.add]


def _inner() -> CompiledStateGraph:
    return (
        StateGraph(Trail)
        .add_node("a", lambda s: {"steps": ["a"]})
        .add_node("b", lambda s: {"steps": ["b"]})
        .add_edge(START, "a")
        .add_edge("a", "b")
        .compile(name="inner")
    )


def _outer(node: Any) -> CompiledStateGraph:
    return StateGraph(Trail).add_node("outer", node).add_edge(START, "outer").compile()


def _shape(chunks: list[Any]) -> list[Any]:
    """Namespaces cut to their node names (task ids differ per run)."""
    return [(tuple(part.split(":")[0] for part in ns), chunk) for ns, chunk in chunks]


def _streaming_sync_node(seen: list[Any]) -> Any:
    inner = _inner()

    def outer(state: Trail) -> Trail:
        seen.extend(inner.stream({"steps": []}))
        return {"steps": ["outer"]}

    return outer


def _streaming_async_node(seen: list[Any]) -> Any:
    inner = _inner()

    async def outer(state: Trail) -> Trail:
        seen.extend([chunk async for chunk in inner.astream({"steps": []})])
        return {"steps": ["outer"]}

    return outer


INNER_UPDATES = [{"a": {"steps": ["a"]}}, {"b": {"steps": ["b"]}}]
WITH_SUBGRAPHS = [
    (("outer",), {"a": {"steps": ["a"]}}),
    (("outer",), {"b": {"steps": ["b"]}}),
    ((), {"outer": {"steps": ["outer"]}}),
]


@pytest.mark.parametrize("make", [_streaming_sync_node, _streaming_async_node])
def test_a_graph_streamed_in_a_node_shows_in_the_parents_subgraphs_stream(make: Any) -> None:
    """A graph streamed in a node streams into the parent's subgraphs stream only, namespaced."""
    seen: list[Any] = []
    graph = _outer(make(seen))
    assert _shape(list(graph.stream({"steps": []}, subgraphs=True))) == WITH_SUBGRAPHS
    assert seen == INNER_UPDATES
    seen.clear()
    assert list(graph.stream({"steps": []})) == [{"outer": {"steps": ["outer"]}}]
    assert seen == INNER_UPDATES


@pytest.mark.asyncio
async def test_a_graph_streamed_in_a_node_has_the_node_task_namespace() -> None:
    """The namespace of a graph streamed in a node is "node:task_id", the id of the node's task."""
    graph = _outer(_streaming_async_node([]))
    chunks = [c async for c in graph.astream({"steps": []}, stream_mode="tasks", subgraphs=True)]
    outer_ids = {c["id"] for ns, c in chunks if ns == () and c["name"] == "outer"}
    inner_namespaces = {ns for ns, c in chunks if ns != ()}
    assert inner_namespaces == {(f"outer:{task_id}",) for task_id in outer_ids}


def test_a_sync_invoke_in_a_node_streams_before_the_node_returns() -> None:
    """A graph invoked synchronously in a sync node streams its chunks before the node's update."""
    inner = _inner()

    def outer(state: Trail) -> Trail:
        inner.invoke({"steps": []})
        return {"steps": ["outer"]}

    graph = _outer(outer)
    assert _shape(list(graph.stream({"steps": []}, subgraphs=True))) == WITH_SUBGRAPHS


def test_invoke_takes_subgraphs_and_returns_the_same_values() -> None:
    """invoke(subgraphs=True) runs as without it and returns the same values, as LangGraph's."""
    graph = _outer(_streaming_sync_node([]))
    assert graph.invoke({"steps": []}, subgraphs=True) == {"steps": ["outer"]}


def _asking() -> CompiledStateGraph:
    def ask(state: Trail) -> Trail:
        return {"steps": [interrupt("more?")]}

    return StateGraph(Trail).add_node("ask", ask).add_edge(START, "ask").compile(name="asking")


def _sync_asker(seen: list[Any]) -> Any:
    inner = _asking()

    def outer(state: Trail) -> Trail:
        seen.extend(inner.stream({"steps": ["asked"]}, stream_mode="values"))
        return {"steps": seen[-1]["steps"]}

    return outer


def _async_asker(seen: list[Any]) -> Any:
    inner = _asking()

    async def outer(state: Trail) -> Trail:
        async for chunk in inner.astream({"steps": ["asked"]}, stream_mode="values"):
            seen.append(chunk)
        return {"steps": seen[-1]["steps"]}

    return outer


@pytest.mark.parametrize("make", [_sync_asker, _async_asker])
def test_a_graph_streamed_in_a_node_that_asks_pauses_the_parent_until_answered(make: Any) -> None:
    """A question of a graph streamed in a node pauses the parent; the answer resumes that graph."""
    seen: list[Any] = []
    graph = StateGraph(Trail).add_node("outer", make(seen)).add_edge(START, "outer")
    parent = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    paused = parent.invoke({"steps": []}, config)
    assert [q.value for q in paused["__interrupt__"]] == ["more?"]
    assert parent.get_state(config).next == ("outer",)
    assert [c["steps"] for c in seen] == [["asked"], ["asked"]]  # the second with the question
    seen.clear()
    assert parent.invoke(Command(resume="please"), config) == {"steps": ["asked", "please"]}
    assert seen == [{"steps": ["asked"]}, {"steps": ["asked", "please"]}]
