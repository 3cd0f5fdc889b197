"""A quick step, then a step that waits ``delay`` seconds, then a last step: a busy thread.

The wait is an ``asyncio.sleep``, so a cancelled run stops in it on either server.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    steps: Annotated[list[str], operator.add]
    delay: float


def begin(state: State) -> dict[str, Any]:
    """Append ``begin``."""
    return {"steps": ["begin"]}


async def wait(state: State) -> dict[str, Any]:
    """Wait ``delay`` seconds, then append ``waited``."""
    await asyncio.sleep(state["delay"])
    return {"steps": ["waited"]}


def finish(state: State) -> dict[str, Any]:
    """Append ``finish``."""
    return {"steps": ["finish"]}


builder = StateGraph(State)
builder.add_node("begin", begin)
builder.add_node("wait", wait)
builder.add_node("finish", finish)
builder.add_edge(START, "begin")
builder.add_edge("begin", "wait")
builder.add_edge("wait", "finish")
builder.add_edge("finish", END)
graph = builder.compile()
