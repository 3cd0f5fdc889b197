"""Graph API concept guide, "State": a dataclass as the state schema, with defaults.

Follows the Graph API guide's "Define state" (state can be a ``TypedDict``,
a Pydantic model or a dataclass; a dataclass gives default values) and
"Create a sequence of steps" (``add_sequence``, then ``add_edge(START,
"step_1")``): nodes read attributes (``state.value_1``), return partial
updates, and the graph returns a dict.
"""

import operator
from dataclasses import dataclass, field
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


@dataclass
class State:
    value_1: str
    value_2: int = 0
    notes: Annotated[list[str], operator.add] = field(default_factory=list)


def step_1(state: State):
    print(f"step_1 sees {state.value_1!r} {state.value_2} {state.notes}")
    return {"value_1": "a", "notes": ["step_1"]}


def step_2(state: State):
    current_value_1 = state.value_1
    return {"value_1": f"{current_value_1} b", "notes": ["step_2"]}


def step_3(state: State):
    print(f"step_3 sees {type(state).__name__}")
    return {"value_2": 10}


builder = StateGraph(State).add_sequence([step_1, step_2, step_3])
builder.add_edge(START, "step_1")

graph = builder.compile()
print(graph.invoke({"value_1": "c"}))

for chunk in graph.stream({"value_1": "c"}, stream_mode="values"):
    print(chunk)

graph = builder.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
graph.invoke({"value_1": "c"}, config)
for state in graph.get_state_history(config):
    print(state.values, state.next, state.metadata["source"], state.metadata["step"])
