"""Human-in-the-loop guide, "Pause using interrupt": the extended example.

Follows the guide: ``interrupt({"text_to_revise": ...})`` in ``human_node``,
an ``InMemorySaver``, a thread id given as ``uuid.uuid4()`` (not a string),
``result["__interrupt__"]`` printed, then ``Command(resume="Edited text")``.
Also prints the paused state as ``get_state(config)`` shows it.
"""

import uuid
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.constants import START
from langgraph.graph import StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    some_text: str


def human_node(state: State):
    value = interrupt(  # (1)!
        {
            "text_to_revise": state["some_text"]  # (2)!
        }
    )
    return {
        "some_text": value  # (3)!
    }


# Build the graph
graph_builder = StateGraph(State)
graph_builder.add_node("human_node", human_node)
graph_builder.add_edge(START, "human_node")
checkpointer = InMemorySaver()  # (4)!
graph = graph_builder.compile(checkpointer=checkpointer)
# Pass a thread ID to the graph to run it.
config = {"configurable": {"thread_id": uuid.uuid4()}}
# Run the graph until the interrupt is hit.
result = graph.invoke({"some_text": "original text"}, config=config)  # (5)!

print(result["__interrupt__"])  # (6)!
# > [Interrupt(value={'text_to_revise': 'original text'}, id='6d7c4048049254c83195429a3659661d')]

snapshot = graph.get_state(config)
print(snapshot.values)
print(snapshot.next)
print([task.name for task in snapshot.tasks])
print(snapshot.interrupts)

print(graph.invoke(Command(resume="Edited text"), config=config))  # (7)!
# > {'some_text': 'Edited text'}

snapshot = graph.get_state(config)
print(snapshot.values, snapshot.next, snapshot.interrupts)
