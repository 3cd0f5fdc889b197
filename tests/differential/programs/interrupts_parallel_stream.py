"""Human-in-the-loop guide, "Multiple interrupts": two nodes of one step ask, streamed.

Each question streams as its task asks it (an ``updates`` and a ``values``
chunk of its own); answering one by id runs the other again, whose question
streams before the answered node's update; answering the last one streams
the finished node's update again, marked ``cached``, before the rest.
"""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    answers: Annotated[list[str], operator.add]


def ask_name(state: State) -> dict[str, Any]:
    return {"answers": [f"name={interrupt({'question': 'name?'})}"]}


async def ask_color(state: State) -> dict[str, Any]:
    await asyncio.sleep(0.2)
    return {"answers": [f"color={interrupt({'question': 'color?'})}"]}


def summary(state: State) -> dict[str, Any]:
    return {"answers": [f"{len(state['answers'])} answers"]}


builder = StateGraph(State)
builder.add_node("ask_name", ask_name)
builder.add_node("ask_color", ask_color)
builder.add_node("summary", summary)
builder.add_edge(START, "ask_name")
builder.add_edge(START, "ask_color")
builder.add_edge(["ask_name", "ask_color"], "summary")
builder.add_edge("summary", END)
graph = builder.compile(checkpointer=InMemorySaver())


async def main() -> None:
    config = {"configurable": {"thread_id": "1"}}
    questions = {}
    async for mode, chunk in graph.astream(
        {"answers": []}, config, stream_mode=["values", "updates"]
    ):
        for question in chunk.get("__interrupt__", ()) if mode == "updates" else ():
            questions[question.value["question"]] = question
        print(mode, chunk)
    for asked, answer in (("color?", "teal"), ("name?", "Ada")):
        print("--- answer", asked)
        command = Command(resume={questions[asked].id: answer})
        async for mode, chunk in graph.astream(command, config, stream_mode=["values", "updates"]):
            print(mode, chunk)


if __name__ == "__main__":
    asyncio.run(main())
