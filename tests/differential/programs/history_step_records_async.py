"""Time-travel guide, async: each checkpoint of the history shows its step as it started.

Follows the "Use time-travel" guide with the async methods (``ainvoke``,
``aget_state``, ``aget_state_history``) and the interrupts guide's
``interrupt()`` with ``Command(resume=..., update=...)``: ``draft`` and
``ask`` run from ``START``, ``draft`` also sends ``review`` a ``Send``, and
``ask`` asks two questions. An update comes with the first answer, another
with the second. Prints each snapshot's
step, values, next, tasks (name, path, interrupts, result) and interrupts: the
paused step's live state and its record, then the finished thread's history,
where each step's checkpoint shows the values it started from (with the updates
given to it) and every question its tasks asked.
"""

import asyncio
import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    steps: Annotated[list[str], operator.add]
    notes: Annotated[list[str], operator.add]


async def draft(state: State):
    return Command(update={"steps": ["draft"]}, goto=[Send("review", {"steps": ["sent"]})])


async def ask(state: State):
    topic = interrupt("which topic?")
    tone = interrupt("which tone?")
    return {"steps": [f"ask:{topic}:{tone}"]}


async def review(state: State):
    return {"steps": [f"review:{len(state['steps'])}"]}


async def polish(state: State):
    return {"steps": ["polish"]}


builder = StateGraph(State)
builder.add_node(draft)
builder.add_node(ask)
builder.add_node(review)
builder.add_node(polish)
builder.add_edge(START, "ask")
builder.add_edge(START, "draft")
builder.add_edge("draft", "polish")
graph = builder.compile(checkpointer=InMemorySaver())


def show(snapshot):
    tasks = [(t.name, t.path, [i.value for i in t.interrupts], t.result) for t in snapshot.tasks]
    print(
        " ",
        snapshot.metadata["step"],
        snapshot.values,
        snapshot.next,
        tasks,
        [i.value for i in snapshot.interrupts],
    )


async def main() -> None:
    config = {"configurable": {"thread_id": "1"}}
    await graph.ainvoke({"steps": [], "notes": []}, config)
    result = await graph.ainvoke(Command(resume="owls", update={"notes": ["first"]}), config)
    print([i.value for i in result["__interrupt__"]])
    print("paused, live:")
    paused = await graph.aget_state(config)
    show(paused)
    print("paused, its record:")
    show(await graph.aget_state(paused.config))
    result = await graph.ainvoke(Command(resume="dry", update={"notes": ["second"]}), config)
    print(result)
    print("history:")
    async for state in graph.aget_state_history(config):
        show(state)


if __name__ == "__main__":
    asyncio.run(main())
