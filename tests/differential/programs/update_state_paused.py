"""Persistence guide, "Update state" and "Get state history", on a thread paused at an interrupt.

``update_state`` while node ``ask`` waits on ``interrupt()``: the new
checkpoint plans ``ask`` afresh (no question pending until it runs again),
keys outside the state schema are left out, and every earlier checkpoint's
finished task shows its update as its ``result``. Then a breakpoint before
``ask`` answered with a single ``Command(resume=...)``: the answer goes to the
question ``ask`` asks when it runs.
"""

from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command, interrupt


class State(TypedDict):
    messages: Annotated[list[Any], add_messages]
    topic: str


def pick(state: State) -> dict[str, Any]:
    return {"topic": "cats"}


def ask(state: State) -> dict[str, Any]:
    answer = interrupt(f"more about {state['topic']}?")
    return {"messages": [{"role": "ai", "content": f"{state['topic']}: {answer}", "id": "r"}]}


def show(snapshot: Any) -> None:
    tasks = [(t.name, t.result, [i.value for i in t.interrupts]) for t in snapshot.tasks]
    print(snapshot.metadata["source"], snapshot.metadata["step"], snapshot.next, tasks)


builder = StateGraph(State)
builder.add_node("pick", pick)
builder.add_node("ask", ask)
builder.add_edge(START, "pick")
builder.add_edge("pick", "ask")
builder.add_edge("ask", END)
graph = builder.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "1"}}
print(graph.invoke({"messages": [{"role": "user", "content": "hi", "id": "u"}]}, config))
for snapshot in graph.get_state_history(config):
    show(snapshot)

graph.update_state(config, {"topic": "dogs", "mood": "unknown key"}, as_node="pick")
state = graph.get_state(config)
show(state)
print(state.values["topic"], state.interrupts)
print(graph.invoke(None, config)["__interrupt__"][0].value)
print(graph.invoke(Command(resume="yes"), config)["messages"][-1].content)
for snapshot in graph.get_state_history(config):
    show(snapshot)

stops = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["ask"])
config = {"configurable": {"thread_id": "2"}}
print(stops.invoke({"messages": []}, config))
print(stops.get_state(config).next, stops.get_state(config).interrupts)
print(stops.invoke(Command(resume="at the breakpoint"), config)["messages"][-1].content)
