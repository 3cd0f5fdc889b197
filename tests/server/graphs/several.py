"""Two nodes run in one step and each asks a question (two interrupts pending at once).

The second asks a moment after the first: the nodes of one step run concurrently, and
the order in which the two interrupts are raised is in the stream and in the state.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class State(TypedDict):
    answers: Annotated[list[str], operator.add]
    note: str


def ask_name(state: State) -> dict[str, Any]:
    """Ask for a name."""
    return {"answers": [f"name={interrupt({'question': 'name?'})}"]}


async def ask_color(state: State) -> dict[str, Any]:
    """Ask for a color, after the name has been asked for."""
    await asyncio.sleep(0.2)
    return {"answers": [f"color={interrupt({'question': 'color?'})}"]}


def summary(state: State) -> dict[str, Any]:
    """Sum the answers up, with the note an update may have set."""
    return {"answers": [f"{len(state['answers'])} answers, note {state.get('note', '-')}"]}


builder = StateGraph(State)
builder.add_node("ask_name", ask_name)
builder.add_node("ask_color", ask_color)
builder.add_node("summary", summary)
builder.add_edge(START, "ask_name")
builder.add_edge(START, "ask_color")
builder.add_edge(["ask_name", "ask_color"], "summary")
builder.add_edge("summary", END)
graph = builder.compile()
