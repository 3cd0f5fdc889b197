"""The subgraphs guide with the Runtime page: a subgraph's nodes read the parent run's context.

One subgraph is added as a node of the parent, another is invoked from inside
a node; neither is given a context of its own, so both see the parent's
``context=``; a subgraph invoked with a context of its own sees that one.
"""

from dataclasses import dataclass

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict


@dataclass
class Context:
    user: str


class State(TypedDict, total=False):
    seen: str


def child_node(state: State, runtime: Runtime[Context]):
    return {"seen": f"{state.get('seen', '')} child:{runtime.context.user}"}


child = StateGraph(State, context_schema=Context)
child.add_node("child_node", child_node)
child.add_edge(START, "child_node")
child.add_edge("child_node", END)
subgraph = child.compile()


def call_child(state: State):
    inner = subgraph.invoke({"seen": state["seen"]})
    own = subgraph.invoke({"seen": ""}, context=Context("own"))
    return {"seen": f"{inner['seen']} |{own['seen']}"}


parent = StateGraph(State, context_schema=Context)
parent.add_node("as_node", subgraph)
parent.add_node("call_child", call_child)
parent.add_edge(START, "as_node")
parent.add_edge("as_node", "call_child")
parent.add_edge("call_child", END)
graph = parent.compile()
print(graph.invoke({"seen": "start"}, context=Context("ada")))
