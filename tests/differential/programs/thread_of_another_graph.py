"""Persistence guide, threads: a new input on a thread another graph wrote and left paused.

Graph ``a`` pauses at an ``interrupt()`` in node ``ask`` with a state key
``delay`` graph ``b`` does not have. Graph ``b`` given a new input on the same
thread runs from the thread's values (what LangGraph Server does when two
assistants share a thread), and graph ``a`` reads the result with its key kept.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt


class A(TypedDict):
    steps: Annotated[list[str], operator.add]
    delay: float


class B(TypedDict):
    steps: Annotated[list[str], operator.add]


saver = InMemorySaver()
a = StateGraph(A)
a.add_node("begin", lambda state: {"steps": ["begin"]})
a.add_node("ask", lambda state: {"steps": [interrupt("which?")]})
a.add_edge(START, "begin")
a.add_edge("begin", "ask")
a = a.compile(checkpointer=saver)

b = StateGraph(B)
b.add_node("x", lambda state: {"steps": ["x"]})
b.add_edge(START, "x")
b = b.compile(checkpointer=saver)

config = {"configurable": {"thread_id": "1"}}
print(a.invoke({"steps": [], "delay": 1.0}, config))
print(b.invoke({"steps": ["new"]}, config)["steps"])
state = b.get_state(config)
print(state.values["steps"], state.next, state.metadata)
print(a.get_state(config).values)
