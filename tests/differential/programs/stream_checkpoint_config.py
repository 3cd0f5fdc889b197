"""Streaming guide, ``stream_mode="checkpoints"`` and ``"debug"``: what a checkpoint chunk holds.

A run given a config with entries of its own (``configurable`` and ``metadata``)
streams each checkpoint with the run's ``configurable`` entries in its config
and parent config, and only the graph's own metadata (``source``, ``step``,
``parents``): the config's entries reach the stored metadata, which the state
then shows. A run from an earlier checkpoint streams the fork's values before the
fork's checkpoint, and each step's values before the checkpoint they make; a
resumed run streams the checkpoint it resumes again, after its values.
"""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    n: int


builder = StateGraph(State)
builder.add_node("add", lambda state: {"n": state["n"] + 1})
builder.add_edge(START, "add")
graph = builder.compile(checkpointer=InMemorySaver())

config = {
    "configurable": {"thread_id": "1", "user": "ada", "__hidden__": 1, "run_id": "r1"},
    "metadata": {"flow": "checkpoints"},
}
for mode, chunk in graph.stream({"n": 0}, config, stream_mode=["checkpoints", "debug"]):
    if mode == "checkpoints":
        print(mode, chunk["config"], chunk["parent_config"], chunk["metadata"], chunk["next"])
    else:
        print(mode, chunk["type"], chunk["payload"].get("config"))
print(sorted(graph.get_state({"configurable": {"thread_id": "1"}}).metadata.items()))

history = list(graph.get_state_history({"configurable": {"thread_id": "1"}}))
earlier = next(s.config for s in history if s.metadata["step"] == 0)
for mode, chunk in graph.stream(None, earlier, stream_mode=["values", "checkpoints"]):
    shown = chunk if mode == "values" else (chunk["metadata"]["source"], chunk["metadata"]["step"])
    print("fork", mode, shown)


def ask(state: State) -> dict[str, int]:
    return {"n": state["n"] + interrupt("how many?")}


asking = StateGraph(State).add_node(ask).add_edge(START, "ask").compile(InMemorySaver())
thread = {"configurable": {"thread_id": "2"}}
for payload in ({"n": 1}, Command(resume=2)):
    for mode, chunk in asking.stream(payload, thread, stream_mode=["values", "checkpoints"]):
        shown = chunk if mode == "values" else (chunk["metadata"]["step"], chunk["next"])
        print("ask", mode, shown)
