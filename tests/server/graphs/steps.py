"""Three steps in a line, each appending its name: for breakpoints, branching and history."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    steps: Annotated[list[str], operator.add]


def step_a(state: State) -> dict[str, Any]:
    """Append ``a``."""
    return {"steps": ["a"]}


def step_b(state: State) -> dict[str, Any]:
    """Append ``b``."""
    return {"steps": ["b"]}


def step_c(state: State) -> dict[str, Any]:
    """Append ``c``, with how many steps came before it."""
    return {"steps": [f"c after {len(state['steps'])}"]}


builder = StateGraph(State)
builder.add_node("a", step_a)
builder.add_node("b", step_b)
builder.add_node("c", step_c)
builder.add_edge(START, "a")
builder.add_edge("a", "b")
builder.add_edge("b", "c")
builder.add_edge("c", END)
graph = builder.compile()
