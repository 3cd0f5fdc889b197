"""Graph API guide, "Create branches": the order a step's parallel writes reach a reducer.

Three nodes run in one step from ``START`` and append to one list: LangGraph
applies a step's writes by task path, so by node name, whatever the order the
edges were added in; ``Send`` tasks come after the nodes' own tasks, in the
order they were sent. A node that failed and ran again later keeps that order.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def writer(name: str):
    def node(state: State):
        return {"log": [name]}

    return node


branches = StateGraph(State)
for name in ("zed", "alpha", "mid"):
    branches.add_node(name, writer(name))
    branches.add_edge(START, name)
print(branches.compile().invoke({"log": []}))

sends = StateGraph(State)
sends.add_node("work", lambda state: {"log": [state["log"][0]]})
sends.add_node("zz", writer("zz"))
sends.add_conditional_edges(
    START, lambda state: [Send("work", {"log": ["s1"]}), Send("work", {"log": ["s0"]}), "zz"]
)
print(sends.compile().invoke({"log": []}))

broken = {"on": True}


def flaky(state: State):
    if broken["on"]:
        raise ValueError("service down")
    return {"log": ["flaky"]}


retried = StateGraph(State)
retried.add_node("ok", writer("ok"))
retried.add_node("flaky", flaky)
retried.add_edge(START, "ok")
retried.add_edge(START, "flaky")
graph = retried.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
try:
    graph.invoke({"log": []}, config)
except ValueError as error:
    print("raised", error)
broken["on"] = False
print(graph.invoke(None, config))
