"""Streaming guide, async: ``astream`` with ``updates``, ``values``, ``custom`` and two modes.

Follows the "Stream outputs" guide's workflow example (``from typing import
TypedDict``) in its "Async" tabs: ``async for chunk in graph.astream(inputs,
stream_mode=...)``, and "Stream custom data" with ``get_stream_writer()`` from
``langgraph.config`` inside an async node. Nodes ``print()`` so that the
output shows when each chunk arrives.
"""

import asyncio
from typing import TypedDict

from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    topic: str
    joke: str


async def refine_topic(state: State):
    writer = get_stream_writer()
    writer({"custom_key": "refining"})
    print("refine_topic runs")
    return {"topic": state["topic"] + " and cats"}


async def generate_joke(state: State):
    writer = get_stream_writer()
    writer({"custom_key": "Generating custom data inside node"})
    print("generate_joke runs")
    writer("second write")
    return {"joke": f"This is a joke about {state['topic']}"}


graph = (
    StateGraph(State)
    .add_node(refine_topic)
    .add_node(generate_joke)
    .add_edge(START, "refine_topic")
    .add_edge("refine_topic", "generate_joke")
    .add_edge("generate_joke", END)
    .compile()
)

inputs = {"topic": "ice cream"}


async def main() -> None:
    for mode in ("updates", "values", "custom"):
        print(f"--- {mode}")
        async for chunk in graph.astream(inputs, stream_mode=mode):
            print(chunk)

    print("--- updates and custom")
    async for mode, chunk in graph.astream(inputs, stream_mode=["updates", "custom"]):
        print(mode, chunk)

    print("--- ainvoke")
    print(await graph.ainvoke(inputs))


if __name__ == "__main__":
    asyncio.run(main())
