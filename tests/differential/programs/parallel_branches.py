"""Graph API guide, "Create branches": fan-out from ``a`` to ``b`` and ``c``, fan-in to ``d``.

Follows "Run graph nodes in parallel" (an ``Annotated[list, operator.add]``
reducer; each node prints what it sees), then "Defer node execution"
(``add_node(d, defer=True)`` waits for the longer ``b`` branch), and
"Conditional branching" with a routing function that returns a list.
Written async, as the guide's "Async" section converts a graph.
"""

import asyncio
import operator
from collections.abc import Sequence
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    # The operator.add reducer fn makes this append-only
    aggregate: Annotated[list, operator.add]
    which: str


def make(name: str):
    async def node(state: State):
        print(f'Adding "{name}" to {state["aggregate"]}')
        return {"aggregate": [name]}

    node.__name__ = name.lower()
    return node


def fan_out_fan_in():
    builder = StateGraph(State)
    for name in "ABCD":
        builder.add_node(make(name))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "c")
    builder.add_edge("b", "d")
    builder.add_edge("c", "d")
    builder.add_edge("d", END)
    return builder.compile()


def deferred():
    builder = StateGraph(State)
    builder.add_node(make("A"))
    builder.add_node(make("B"))
    builder.add_node(make("B_2"))
    builder.add_node(make("C"))
    builder.add_node(make("D"), defer=True)
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "c")
    builder.add_edge("b", "b_2")
    builder.add_edge("b_2", "d")
    builder.add_edge("c", "d")
    builder.add_edge("d", END)
    return builder.compile()


def route_bc_or_cd(state: State) -> Sequence[str]:
    if state["which"] == "cd":
        return ["c", "d"]
    return ["b", "c"]


def conditional():
    builder = StateGraph(State)
    for name in "ABCD":
        builder.add_node(make(name))
    builder.add_edge(START, "a")
    builder.add_conditional_edges("a", route_bc_or_cd)
    for name in "bcd":
        builder.add_edge(name, END)
    return builder.compile()


async def main() -> None:
    print(await fan_out_fan_in().ainvoke({"aggregate": []}, {"configurable": {"thread_id": "foo"}}))
    print(await deferred().ainvoke({"aggregate": []}))
    for which in ("bc", "cd"):
        print(await conditional().ainvoke({"aggregate": [], "which": which}))


if __name__ == "__main__":
    asyncio.run(main())
