"""Graph API guide, "Combine control flow and state updates with Command".

Follows the guide: ``node_a`` is annotated ``-> Command[Literal["node_b",
"node_c"]]`` and returns ``Command(update=..., goto=...)``; the graph has no
edge out of ``node_a``. The guide's ``random.choice`` is replaced by a fixed
sequence of choices so that every run takes the same paths.
"""

from typing import Literal

from langgraph.graph import START, StateGraph
from langgraph.types import Command
from typing_extensions import TypedDict

CHOICES = iter(["a", "b", "b", "a"])


# Define graph state
class State(TypedDict):
    foo: str


# Define the nodes


def node_a(state: State) -> Command[Literal["node_b", "node_c"]]:
    print("Called A")
    value = next(CHOICES)
    # this is a replacement for a conditional edge function
    if value == "a":
        goto = "node_b"
    else:
        goto = "node_c"

    # note how Command allows you to BOTH update the graph state AND route to the next node
    return Command(
        # this is the state update
        update={"foo": value},
        # this is a replacement for an edge
        goto=goto,
    )


def node_b(state: State):
    print("Called B")
    return {"foo": state["foo"] + "b"}


def node_c(state: State):
    print("Called C")
    return {"foo": state["foo"] + "c"}


builder = StateGraph(State)
builder.add_edge(START, "node_a")
builder.add_node(node_a)
builder.add_node(node_b)
builder.add_node(node_c)
# NOTE: there are no edges between nodes A, B and C!

graph = builder.compile()

for _ in range(2):
    print(graph.invoke({"foo": ""}))

for chunk in graph.stream({"foo": ""}):
    print(chunk)

for chunk in graph.stream({"foo": ""}, stream_mode="values"):
    print(chunk)
