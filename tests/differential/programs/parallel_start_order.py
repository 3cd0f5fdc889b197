"""Graph API guide, "Create branches" (fan-out, Send), streamed in ``tasks`` and ``updates``
modes: the order a step's tasks start and stream in, the ``Send`` tasks first, then the nodes.

Two nodes added as ``zeta`` then ``alpha`` run in one step beside a ``Send``: they
start (``tasks`` mode) after the ``Send`` task and by name, not in the order the
graph added them, and, each finishing at once, stream their updates so. Every
start streams before the first update. A step resumed from its checkpoint (one or
both nodes asked a question) starts all its tasks again, the finished ones too,
whose updates then stream again in that order before the rest run.
"""

import asyncio
from operator import add
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt
from typing_extensions import TypedDict


class State(TypedDict):
    log: Annotated[list[str], add]


def plain(name):
    async def node(state: State):
        return {"log": [name]}

    return node


def asking(name):
    async def node(state: State):
        return {"log": [f"{name}:{interrupt(name)}"]}

    return node


def build(asks=()):
    builder = StateGraph(State)
    for name in ["zeta", "alpha", "sent", "join"]:
        builder.add_node(name, asking(name) if name in asks else plain(name))
    builder.add_edge(START, "zeta")
    builder.add_edge(START, "alpha")
    builder.add_conditional_edges(START, lambda state: [Send("sent", {"log": []})], ["sent"])
    builder.add_edge(["zeta", "alpha"], "join")
    builder.add_edge("join", END)
    builder.add_edge("sent", END)
    return builder.compile(checkpointer=InMemorySaver())


async def show(graph, given, config):
    async for mode, part in graph.astream(given, config, stream_mode=["tasks", "updates"]):
        if mode == "tasks":
            print("start" if "input" in part else "end  ", part["name"])
        else:
            print("update", sorted(part))


async def resumed(asks):
    graph = build(asks)
    config = {"configurable": {"thread_id": "+".join(asks)}}
    await show(graph, {"log": []}, config)
    state = await graph.aget_state(config)
    answers = {i.id: f"yes-{i.value}" for i in state.interrupts}
    await show(graph, Command(resume=answers), config)
    print("log", (await graph.aget_state(config)).values["log"])


async def main():
    print("-- a step the run planned")
    await show(build(), {"log": []}, {"configurable": {"thread_id": "planned"}})
    print("-- a step resumed from its checkpoint, two tasks waiting")
    await resumed(("zeta", "alpha"))
    print("-- a step resumed from its checkpoint, one task waiting")
    await resumed(("zeta",))


asyncio.run(main())
