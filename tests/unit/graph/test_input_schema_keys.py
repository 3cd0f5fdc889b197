"""Keys a node's input schema adds: snapshots and "values" show them, invoke() does not."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver


class _State(TypedDict):
    a: int


class _Reads(_State):
    extra: int


def _graph() -> Any:
    graph = StateGraph(_State)
    graph.add_node("w", lambda state: {"extra": 5})
    graph.add_node("r", lambda state: {"a": state["extra"]}, input_schema=_Reads)
    graph.add_edge(START, "w")
    graph.add_edge("w", "r")
    graph.add_edge("r", END)
    return graph.compile(checkpointer=InMemorySaver())


def test_snapshot_values_show_a_key_a_node_input_schema_added() -> None:
    """get_state().values holds a key only a node's input schema declares, after the state's."""
    graph = _graph()
    config = {"configurable": {"thread_id": "t"}}
    assert graph.invoke({"a": 1}, config) == {"a": 5}
    assert graph.get_state(config).values == {"a": 5, "extra": 5}


def test_values_stream_shows_a_key_a_node_input_schema_added() -> None:
    """stream_mode="values" shows a key a node's input schema added once it has a value."""
    config = {"configurable": {"thread_id": "t"}}
    chunks = list(_graph().stream({"a": 1}, config, stream_mode="values"))
    assert chunks == [{"a": 1}, {"a": 1, "extra": 5}, {"a": 5, "extra": 5}]
