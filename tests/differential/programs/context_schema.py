"""Graph API guide, "Add runtime configuration": ``context_schema`` and ``Runtime``.

Follows the guide's runtime-context form: ``StateGraph(State,
context_schema=ContextSchema)``, a node that takes ``runtime: Runtime[ContextSchema]``
and reads ``runtime.context``, invoked with ``context={...}``.
"""

from dataclasses import dataclass

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict


@dataclass
class ContextSchema:
    my_runtime_value: str


class State(TypedDict):
    my_state_value: int


def node(state: State, runtime: Runtime[ContextSchema]):
    if runtime.context.my_runtime_value == "a":
        return {"my_state_value": 1}
    elif runtime.context.my_runtime_value == "b":
        return {"my_state_value": 2}
    else:
        raise ValueError("Unknown values.")


builder = StateGraph(State, context_schema=ContextSchema)
builder.add_node(node)
builder.add_edge(START, "node")
builder.add_edge("node", END)

graph = builder.compile()
print(graph.invoke({}, context=ContextSchema(my_runtime_value="a")))
print(graph.invoke({}, context=ContextSchema(my_runtime_value="b")))
