"""A graph with a subgraph as one of its nodes, and an interrupt inside that subgraph."""

from __future__ import annotations

from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class State(TypedDict):
    steps: list[str]


def inner_step(state: State) -> dict[str, Any]:
    """Record the inner step."""
    return {"steps": [*state["steps"], "inner"]}


def inner_check(state: State) -> dict[str, Any]:
    """Ask for approval inside the subgraph; the resume value is recorded."""
    decision = interrupt({"approve": state["steps"]})
    return {"steps": [*state["steps"], f"approved:{decision}"]}


inner = StateGraph(State)
inner.add_node("inner_step", inner_step)
inner.add_node("inner_check", inner_check)
inner.add_edge(START, "inner_step")
inner.add_edge("inner_step", "inner_check")
inner.add_edge("inner_check", END)


def outer_step(state: State) -> dict[str, Any]:
    """Record the outer step."""
    return {"steps": [*state["steps"], "outer"]}


builder = StateGraph(State)
builder.add_node("outer_step", outer_step)
builder.add_node("child", inner.compile())
builder.add_edge(START, "outer_step")
builder.add_edge("outer_step", "child")
builder.add_edge("child", END)
graph = builder.compile()
