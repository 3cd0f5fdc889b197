"""Streaming guide, ``stream_mode="checkpoints"`` and ``"debug"``: what a checkpoint chunk holds.

A run given a config with entries of its own (``configurable`` and ``metadata``)
streams each checkpoint with the run's ``configurable`` entries in its config
and parent config, and only the graph's own metadata (``source``, ``step``,
``parents``): the config's entries reach the stored metadata, which the state
then shows.
"""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


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
