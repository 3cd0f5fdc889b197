"""Human-in-the-loop guide, "Using multiple interrupts": ``Command(resume=..., update=...)``.

Follows the guide's extended example of code that introduces non-determinism:
the node calls ``interrupt()`` for a name and then for an age unless the state
has them; resuming with ``Command(resume="John", update={"name": "foo"})``
changes the state before the node reruns, so the resume value is matched by
index to the other interrupt. Streamed with ``graph.stream``.
"""

import uuid
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.constants import START
from langgraph.graph import StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    """The graph state."""

    age: str | None
    name: str | None


def human_node(state: State):
    if not state.get("name"):
        name = interrupt("what is your name?")
    else:
        name = "N/A"

    if not state.get("age"):
        age = interrupt("what is your age?")
    else:
        age = "N/A"

    print(f"Name: {name}. Age: {age}")

    return {
        "age": age,
        "name": name,
    }


builder = StateGraph(State)
builder.add_node("human_node", human_node)
builder.add_edge(START, "human_node")

# A checkpointer must be enabled for interrupts to work!
checkpointer = InMemorySaver()
graph = builder.compile(checkpointer=checkpointer)

config = {
    "configurable": {
        "thread_id": uuid.uuid4(),
    }
}

for chunk in graph.stream({"age": None, "name": None}, config):
    print(chunk)

for chunk in graph.stream(Command(resume="John", update={"name": "foo"}), config):
    print(chunk)

print(graph.get_state(config).values)

# The same two questions answered one after the other, on a fresh thread.
config = {"configurable": {"thread_id": uuid.uuid4()}}
for chunk in graph.stream({"age": None, "name": None}, config, stream_mode="values"):
    print(chunk)
for answer in ("Ada", "36"):
    for chunk in graph.stream(Command(resume=answer), config, stream_mode="values"):
        print(chunk)
