"""A graph whose second node raises, after a first node has committed its step."""

from __future__ import annotations

from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    count: int


def first(state: State) -> dict[str, Any]:
    """Count one step."""
    return {"count": state["count"] + 1}


def broken(state: State) -> dict[str, Any]:
    """Raise, naming the count reached."""
    raise ValueError(f"broken at count {state['count']}")


builder = StateGraph(State)
builder.add_node("first", first)
builder.add_node("broken", broken)
builder.add_edge(START, "first")
builder.add_edge("first", "broken")
builder.add_edge("broken", END)
graph = builder.compile()
