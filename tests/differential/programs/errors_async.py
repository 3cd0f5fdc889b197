"""Troubleshooting pages GRAPH_RECURSION_LIMIT and INVALID_CONCURRENT_GRAPH_UPDATE, async.

Follows the pages' graphs run with ``ainvoke``: a loop that never reaches
``END`` raises ``GraphRecursionError`` when the ``recursion_limit`` in the
config is reached (the default limit is enough for a short loop), and two
nodes that write one key without a reducer in the same step raise
``InvalidUpdateError``. Both are ``langgraph.errors`` classes caught by name.
"""

import asyncio
import operator
from typing import Annotated

from langgraph.errors import GraphRecursionError, InvalidUpdateError
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    count: int
    trail: Annotated[list[str], operator.add]


async def bump(state: State):
    return {"count": state["count"] + 1, "trail": ["bump"]}


def keep_going(state: State):
    return "bump" if state["count"] < 1000 else END


loop = StateGraph(State)
loop.add_node(bump)
loop.add_edge(START, "bump")
loop.add_conditional_edges("bump", keep_going)
loop_graph = loop.compile()


async def left(state: State):
    return {"count": 1}


async def right(state: State):
    return {"count": 2}


fan = StateGraph(State)
fan.add_node(left)
fan.add_node(right)
fan.add_edge(START, "left")
fan.add_edge(START, "right")
fan_graph = fan.compile()


async def main() -> None:
    for limit in (3, 10):
        try:
            await loop_graph.ainvoke({"count": 0}, {"recursion_limit": limit})
        except GraphRecursionError:
            print(f"Recursion Error at limit {limit}")
    result = await loop_graph.ainvoke({"count": 995}, {"recursion_limit": 10})
    print(result["count"], len(result["trail"]))

    try:
        await fan_graph.ainvoke({"count": 0})
    except InvalidUpdateError as error:
        print(type(error).__name__, isinstance(error, Exception))

    async for chunk in loop_graph.astream({"count": 998}):
        print(chunk)


if __name__ == "__main__":
    asyncio.run(main())
