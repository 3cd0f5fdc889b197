"""The config code sees in a run: its task's in a node or a ``@task`` call, the run's elsewhere."""

from __future__ import annotations

from typing import Any, TypedDict

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.config import get_config
from pyctx_web.graph.func import entrypoint, task


class _State(TypedDict):
    x: int


def test_a_router_sees_the_runs_config_with_a_metadata() -> None:
    """A router's ``get_config()`` has a ``metadata``, empty when the run was given none."""
    seen: list[dict[str, Any]] = []

    def route(state: _State) -> str:
        seen.append(get_config())
        return END

    graph = (
        StateGraph(_State)
        .add_node("a", lambda state: {"x": 1})
        .add_edge(START, "a")
        .add_conditional_edges("a", route)
        .compile(checkpointer=InMemorySaver())
    )
    graph.invoke({"x": 0}, {"configurable": {"thread_id": "t"}})
    assert seen[0]["metadata"] == {}
    assert seen[0]["configurable"]["thread_id"] == "t"


def test_a_nested_task_call_sees_its_own_namespace_under_its_callers() -> None:
    """A ``@task`` called in a ``@task`` runs in its caller's namespace, pushed by its caller."""
    seen: dict[str, dict[str, Any]] = {}

    @task
    def inner(x: int) -> int:
        seen["inner"] = get_config()
        return x

    @task
    def outer(x: int) -> int:
        seen["outer"] = get_config()
        value: int = inner(x).result()
        return value

    @entrypoint(checkpointer=InMemorySaver())
    def flow(x: int) -> int:
        seen["flow"] = get_config()
        value: int = outer(x).result()
        return value

    flow.invoke(1, {"configurable": {"thread_id": "t"}})
    flow_ns = seen["flow"]["configurable"]["checkpoint_ns"]
    outer_ns = seen["outer"]["configurable"]["checkpoint_ns"]
    inner_conf, inner_meta = seen["inner"]["configurable"], seen["inner"]["metadata"]
    assert outer_ns.startswith(f"{flow_ns}|outer:")
    assert inner_conf["checkpoint_ns"].startswith(f"{outer_ns}|inner:")
    assert inner_meta["langgraph_checkpoint_ns"] == inner_conf["checkpoint_ns"]
    assert inner_meta["langgraph_node"] == "inner"
    assert inner_meta["langgraph_path"] == (
        "__pregel_push",
        ("__pregel_push", ("__pregel_pull", "flow"), 0, True),
        0,
        True,
    )
    checkpoint = seen["flow"]["configurable"]["checkpoint_map"][""]
    assert inner_conf["checkpoint_map"] == {
        "": checkpoint,
        flow_ns: checkpoint,
        outer_ns: checkpoint,
    }


def test_changing_a_nodes_config_changes_nothing_it_sees_next() -> None:
    """A node's config is a copy: what the node changes in it, ``get_config()`` does not show."""
    seen: list[Any] = []

    def node(state: _State, config: dict[str, Any]) -> dict[str, Any]:
        config["configurable"]["checkpoint_ns"] = "changed"
        config["metadata"]["langgraph_node"] = "changed"
        again = get_config()
        seen.append((again["configurable"]["checkpoint_ns"], again["metadata"]["langgraph_node"]))
        return {"x": 1}

    graph = StateGraph(_State).add_node("node", node).add_edge(START, "node").compile()
    graph.invoke({"x": 0})
    assert seen[0][0].startswith("node:")
    assert seen[0][1] == "node"
