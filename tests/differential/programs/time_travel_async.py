"""Time-travel guide, async: history, a fork with ``aupdate_state`` and a run from it.

Follows the "Use time-travel" guide's four steps with the async methods
(``ainvoke``, ``aget_state_history``, ``aupdate_state``, ``aget_state``): a
thread id given as ``uuid.uuid4()``, the state before ``write_joke`` chosen
from the history, its topic replaced, and the graph resumed from the new
checkpoint with an input of ``None``. Also updates with ``as_node``.
"""

import asyncio
import uuid
from typing import NotRequired

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    topic: NotRequired[str]
    joke: NotRequired[str]


async def generate_topic(state: State):
    """LLM call to generate a topic for the joke"""
    print("generate_topic runs")
    return {"topic": "socks in the dryer"}


async def write_joke(state: State):
    """LLM call to write a joke based on the topic"""
    print(f"write_joke runs on {state['topic']}")
    return {"joke": f"A short joke about {state['topic']}."}


workflow = StateGraph(State)
workflow.add_node("generate_topic", generate_topic)
workflow.add_node("write_joke", write_joke)
workflow.add_edge(START, "generate_topic")
workflow.add_edge("generate_topic", "write_joke")
workflow.add_edge("write_joke", END)
graph = workflow.compile(checkpointer=InMemorySaver())


async def main() -> None:
    config = {"configurable": {"thread_id": uuid.uuid4()}}
    print(await graph.ainvoke({}, config))

    # The states are returned in reverse chronological order.
    states = [state async for state in graph.aget_state_history(config)]
    for state in states:
        print(state.next, state.metadata["source"], state.metadata["step"])

    selected_state = states[1]
    print(selected_state.next)
    print(selected_state.values)

    new_config = await graph.aupdate_state(selected_state.config, values={"topic": "chickens"})
    print(sorted(new_config["configurable"]))
    print((await graph.aget_state(new_config)).next)
    print(await graph.ainvoke(None, new_config))

    # Update as if write_joke had run: nothing is left to do.
    await graph.aupdate_state(config, {"joke": "edited by hand"}, as_node="write_joke")
    latest = await graph.aget_state(config)
    print(latest.values, latest.next, latest.metadata["source"], latest.metadata["step"])
    print(await graph.ainvoke(None, config))


if __name__ == "__main__":
    asyncio.run(main())
