"""Human-in-the-loop guide, "Debug with interrupts": static ``interrupt_before`` breakpoints.

Follows the guide's example "Setting static breakpoints": three steps that
print and return nothing, ``compile(checkpointer=..., interrupt_before=
["step_3"])``, ``graph.stream(initial_input, thread, stream_mode="values")``
up to the breakpoint, ``get_state`` there, then ``graph.stream(None, thread,
stream_mode="values")`` to go on. Then the same graph with the breakpoints
given at run time, resumed with ``invoke(None, config)``.
"""

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    input: str


def step_1(state):
    print("---Step 1---")
    pass


def step_2(state):
    print("---Step 2---")
    pass


def step_3(state):
    print("---Step 3---")
    pass


builder = StateGraph(State)
builder.add_node("step_1", step_1)
builder.add_node("step_2", step_2)
builder.add_node("step_3", step_3)
builder.add_edge(START, "step_1")
builder.add_edge("step_1", "step_2")
builder.add_edge("step_2", "step_3")
builder.add_edge("step_3", END)

# Set up a checkpointer
checkpointer = InMemorySaver()  # (1)!

graph = builder.compile(
    checkpointer=checkpointer,  # (2)!
    interrupt_before=["step_3"],  # (3)!
)

# Input
initial_input = {"input": "hello world"}

# Thread
thread = {"configurable": {"thread_id": "1"}}

# Run the graph until the first interruption
for event in graph.stream(initial_input, thread, stream_mode="values"):
    print(event)

# This will run until the breakpoint
# You can get the state of the graph at this point
state = graph.get_state(thread)
print(state.values, state.next, state.metadata["source"], state.metadata["step"])

# You can continue the graph execution by passing in `None` for the input
for event in graph.stream(None, thread, stream_mode="values"):
    print(event)

state = graph.get_state(thread)
print(state.values, state.next, state.metadata["source"], state.metadata["step"])

graph = builder.compile(checkpointer=checkpointer)
config = {"configurable": {"thread_id": "2"}}
print(graph.invoke(initial_input, config, interrupt_before=["step_2"]))
print(graph.get_state(config).next)
print(graph.invoke(None, config, interrupt_after=["step_2"]))
print(graph.get_state(config).next)
print(graph.invoke(None, config))
print(graph.get_state(config).next)
