"""Graph API guide, "Pass private state between nodes", with ``add_node(input_schema=...)``.

``w`` writes ``extra``, a key only the ``input_schema`` of node ``r`` declares
(a TypedDict and a pydantic state). The node reads it; the snapshot and the
"values" stream show it; ``invoke()``'s result and a node of the state type do
not.
"""

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel
from typing_extensions import TypedDict


class State(TypedDict):
    a: int


class Reads(State):
    extra: int


class Model(BaseModel):
    a: int


class ModelReads(Model):
    extra: int = 0


def read(state):
    extra = state.extra if isinstance(state, BaseModel) else state["extra"]
    print("r reads", sorted(state) if isinstance(state, dict) else sorted(type(state).model_fields))
    return {"a": extra}


def after(state):
    print("s reads", sorted(state) if isinstance(state, dict) else sorted(type(state).model_fields))


for state_type, reads in ((State, Reads), (Model, ModelReads)):
    print("==", state_type.__name__)
    graph = (
        StateGraph(state_type)
        .add_node("w", lambda state: {"extra": 5})
        .add_node("r", read, input_schema=reads)
        .add_node("s", after)
        .add_edge(START, "w")
        .add_edge("w", "r")
        .add_edge("r", "s")
        .add_edge("s", END)
        .compile(checkpointer=InMemorySaver())
    )
    config = {"configurable": {"thread_id": state_type.__name__}}
    print("invoke:", graph.invoke({"a": 1}, config))
    print("get_state:", graph.get_state(config).values)
    print("history:", [snap.values for snap in graph.get_state_history(config)])
    config = {"configurable": {"thread_id": state_type.__name__ + "-stream"}}
    for chunk in graph.stream({"a": 1}, config, stream_mode="values"):
        print("values:", chunk)
