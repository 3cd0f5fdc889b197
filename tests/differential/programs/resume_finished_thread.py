"""Human-in-the-loop guide, resuming: a ``Command(resume=...)`` on a thread that ran to its end.

Nothing waits for an answer: the run streams the thread's values and ends,
whether the answer is a single value or a map by interrupt id, and writes no
checkpoint (the history keeps its length).
"""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command


class State(TypedDict):
    n: int


builder = StateGraph(State)
builder.add_node("add", lambda state: {"n": state["n"] + 1})
builder.add_edge(START, "add")
graph = builder.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "1"}}
print(graph.invoke({"n": 0}, config))
before = len(list(graph.get_state_history(config)))
print(list(graph.stream(Command(resume="again"), config, stream_mode=["values", "updates"])))
print(list(graph.stream(Command(resume={"0" * 32: "x"}), config, stream_mode="values")))
print(graph.invoke(Command(resume="again"), config))
print(len(list(graph.get_state_history(config))) - before, graph.get_state(config).next)
