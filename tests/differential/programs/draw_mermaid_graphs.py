"""Graph API guide graphs drawn as the "Visualize your graph" page draws them: Mermaid text.

Each graph is built as the guide builds it and printed with
``print(graph.get_graph().draw_mermaid())``: the README quickstart's sequence,
the page's own graph (a ``Literal`` router and a loop back), conditional
branching with a list ``path_map``, a dict ``path_map`` whose keys label the
edges, a router with no ``path_map`` nor annotation, ``Command[Literal[...]]``
destinations, map-reduce with ``Send``, a loop to ``END``, and a join of
parallel branches into a deferred node. Nothing is invoked: the drawing alone.
"""

import operator
from collections.abc import Sequence
from typing import Annotated, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send
from typing_extensions import TypedDict


class State(TypedDict):
    value: int
    aggregate: Annotated[list, operator.add]


def step(state: State):
    return {"aggregate": ["x"]}


def show(title: str, graph) -> None:
    print(f"# {title}")
    print(graph.get_graph().draw_mermaid())


# README quickstart: a sequence
builder = StateGraph(State)
builder.add_node("node_a", step)
builder.add_node("node_b", step)
builder.add_edge(START, "node_a")
builder.add_edge("node_a", "node_b")
show("sequence", builder.compile())


# "Visualize your graph": a router annotated with Literal, and a loop back
def node1(state: State):
    return {"value": state["value"] + 1}


def node2(state: State):
    return {"value": state["value"] * 2}


def router(state: State) -> Literal["node2", "__end__"]:
    if state["value"] < 10:
        return "node2"
    return END


app = (
    StateGraph(State)
    .add_node("node1", node1)
    .add_node("node2", node2)
    .add_edge(START, "node1")
    .add_conditional_edges("node1", router)
    .add_edge("node2", "node1")
    .compile()
)
show("visualize page", app)


# Conditional branching: the router returns several nodes, listed in path_map
def route_bc_or_cd(state: State) -> Sequence[str]:
    if state["value"] > 0:
        return ["b", "c"]
    return ["c", "d"]


intermediates = ["b", "c", "d"]
builder = StateGraph(State)
for name in ["a", *intermediates, "e"]:
    builder.add_node(name, step)
builder.add_edge(START, "a")
builder.add_conditional_edges("a", route_bc_or_cd, intermediates)
for node in intermediates:
    builder.add_edge(node, "e")
builder.add_edge("e", END)
show("conditional branching, list path_map", builder.compile())


# The same router without path_map: LangGraph cannot tell where it leads
builder = StateGraph(State)
for name in ["a", *intermediates]:
    builder.add_node(name, step)
builder.add_edge(START, "a")
builder.add_conditional_edges("a", route_bc_or_cd)
for node in intermediates:
    builder.add_edge(node, END)
show("conditional branching, no path_map", builder.compile())


# Conditional edges: a dict path_map, whose keys label the edges
def routing_function(state: State) -> bool:
    return state["value"] > 0


builder = StateGraph(State)
builder.add_node("node_a", step)
builder.add_node("node_b", step)
builder.add_node("node_c", step)
builder.add_edge(START, "node_a")
builder.add_conditional_edges("node_a", routing_function, {True: "node_b", False: "node_c"})
builder.add_edge("node_b", END)
builder.add_edge("node_c", END)
show("dict path_map", builder.compile())


# Combine control flow and state updates with Command
def node_a(state: State) -> Command[Literal["node_b", "node_c"]]:
    goto = "node_b" if state["value"] else "node_c"
    return Command(update={"value": 1}, goto=goto)


builder = StateGraph(State)
builder.add_edge(START, "node_a")
builder.add_node(node_a)
builder.add_node("node_b", step)
builder.add_node("node_c", step)
show("Command", builder.compile())


# Map-reduce with Send
def generate_topics(state: State):
    return {"aggregate": ["lions", "elephants"]}


def continue_to_jokes(state: State):
    return [Send("generate_joke", {"subject": s}) for s in state["aggregate"]]


builder = StateGraph(State)
builder.add_node("generate_topics", generate_topics)
builder.add_node("generate_joke", step)
builder.add_node("best_joke", step)
builder.add_edge(START, "generate_topics")
builder.add_conditional_edges("generate_topics", continue_to_jokes, ["generate_joke"])
builder.add_edge("generate_joke", "best_joke")
builder.add_edge("best_joke", END)
show("map-reduce", builder.compile())


# Create and control loops
def route(state: State) -> Literal["b", END]:
    if len(state["aggregate"]) < 7:
        return "b"
    return END


builder = StateGraph(State)
builder.add_node("a", step)
builder.add_node("b", step)
builder.add_edge(START, "a")
builder.add_conditional_edges("a", route)
builder.add_edge("b", "a")
show("loop", builder.compile())

# Loop with branches joined back: add_edge(["c", "d"], "a")
builder = StateGraph(State)
for name in "abcd":
    builder.add_node(name, step)
builder.add_edge(START, "a")
builder.add_conditional_edges("a", route)
builder.add_edge("b", "c")
builder.add_edge("b", "d")
builder.add_edge(["c", "d"], "a")
show("loop with a join", builder.compile())

# Defer node execution: d waits for the longer branch
builder = StateGraph(State)
for name in ["a", "b", "b_2", "c"]:
    builder.add_node(name, step)
builder.add_node("d", step, defer=True)
builder.add_edge(START, "a")
builder.add_edge("a", "b")
builder.add_edge("a", "c")
builder.add_edge("b", "b_2")
builder.add_edge(["b_2", "c"], "d")
builder.add_edge("d", END)
show("join into a deferred node", builder.compile())
