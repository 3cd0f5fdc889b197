"""Graph API guide, "Map-Reduce and the Send API": one ``generate_joke`` task per subject.

Follows the guide's example: ``continue_to_jokes`` returns a list of
``Send("generate_joke", {"subject": s})`` from a conditional edge, the jokes
are gathered by an ``Annotated[list[str], add]`` reducer, and the run is
streamed (default mode, ``"updates"``). The jokes come from a fixed table
instead of a model, as in the guide. Written async (``astream``, ``ainvoke``),
as the guide's "Async" section converts a graph: the three ``generate_joke``
tasks run in one step, and only async nodes finish in a fixed order.
"""

import asyncio
from operator import add
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from typing_extensions import TypedDict


class OverallState(TypedDict):
    topic: str
    subjects: list[str]
    jokes: Annotated[list[str], add]
    best_selected_joke: str


async def generate_topics(state: OverallState):
    return {"subjects": ["lions", "elephants", "penguins"]}


async def generate_joke(state: OverallState):
    joke_map = {
        "lions": "Why don't lions like fast food? Because they can't catch it!",
        "elephants": "Why don't elephants use computers? They're afraid of the mouse!",
        "penguins": (
            "Why don't penguins like talking to strangers at parties? "
            "Because they find it hard to break the ice."
        ),
    }
    return {"jokes": [joke_map[state["subject"]]]}


def continue_to_jokes(state: OverallState):
    return [Send("generate_joke", {"subject": s}) for s in state["subjects"]]


async def best_joke(state: OverallState):
    return {"best_selected_joke": "penguins"}


builder = StateGraph(OverallState)
builder.add_node("generate_topics", generate_topics)
builder.add_node("generate_joke", generate_joke)
builder.add_node("best_joke", best_joke)
builder.add_edge(START, "generate_topics")
builder.add_conditional_edges("generate_topics", continue_to_jokes, ["generate_joke"])
builder.add_edge("generate_joke", "best_joke")
builder.add_edge("best_joke", END)
graph = builder.compile()


async def main() -> None:
    # Call the graph: here we call it to generate a list of jokes
    async for step in graph.astream({"topic": "animals"}):
        print(step)

    result = await graph.ainvoke({"topic": "animals"})
    print(result["jokes"])
    print(result["best_selected_joke"])


if __name__ == "__main__":
    asyncio.run(main())
