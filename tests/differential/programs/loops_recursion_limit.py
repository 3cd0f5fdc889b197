"""Graph API guide, "Create and control loops": a loop ended by a conditional edge.

Follows the guide: ``route`` returns ``Literal["b", END]``; the loop runs until
the aggregate has seven items; with ``{"recursion_limit": 4}`` the same graph
raises ``GraphRecursionError``, caught as the guide catches it. Then the
"loops with branches" example, where ``b`` fans out to ``c`` and ``d``.
"""

import operator
from typing import Annotated, Literal

from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    # The operator.add reducer fn makes this append-only
    aggregate: Annotated[list, operator.add]


def a(state: State):
    print(f"Node A sees {state['aggregate']}")
    return {"aggregate": ["A"]}


def b(state: State):
    print(f"Node B sees {state['aggregate']}")
    return {"aggregate": ["B"]}


# Define nodes
builder = StateGraph(State)
builder.add_node(a)
builder.add_node(b)


# Define edges
def route(state: State) -> Literal["b", END]:
    if len(state["aggregate"]) < 7:
        return "b"
    else:
        return END


builder.add_edge(START, "a")
builder.add_conditional_edges("a", route)
builder.add_edge("b", "a")
graph = builder.compile()

print(graph.invoke({"aggregate": []}))

try:
    graph.invoke({"aggregate": []}, {"recursion_limit": 4})
except GraphRecursionError:
    print("Recursion Error")


def c(state: State):
    return {"aggregate": ["C"]}


def d(state: State):
    return {"aggregate": ["D"]}


builder = StateGraph(State)
builder.add_node(a)
builder.add_node(b)
builder.add_node(c)
builder.add_node(d)
builder.add_edge(START, "a")
builder.add_conditional_edges("a", route)
builder.add_edge("b", "c")
builder.add_edge("b", "d")
builder.add_edge(["c", "d"], "a")
graph = builder.compile()

result = graph.invoke({"aggregate": []})
print(result)

try:
    result = graph.invoke({"aggregate": []}, {"recursion_limit": 4})
except GraphRecursionError as error:
    print("Recursion Error:", type(error).__name__, isinstance(error, RecursionError))
