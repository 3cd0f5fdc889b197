"""Human-in-the-loop guide, "Approve or reject": an interrupt that routes with Command.

Follows the guide's extended example: ``human_approval`` is annotated
``-> Command[Literal["approved_path", "rejected_path"]]``, asks with
``interrupt()`` and returns ``Command(goto=..., update=...)``; the entry point
is set with ``set_entry_point``; threads are ``uuid.uuid4()``. Both answers
are tried, each on its own thread.
"""

import uuid
from typing import Literal, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.constants import END
from langgraph.graph import StateGraph
from langgraph.types import Command, interrupt


# Define the shared graph state
class State(TypedDict):
    llm_output: str
    decision: str


# Simulate an LLM output node
def generate_llm_output(state: State) -> State:
    return {"llm_output": "This is the generated output."}


# Human approval node
def human_approval(state: State) -> Command[Literal["approved_path", "rejected_path"]]:
    decision = interrupt(
        {"question": "Do you approve the following output?", "llm_output": state["llm_output"]}
    )

    if decision == "approve":
        return Command(goto="approved_path", update={"decision": "approved"})
    else:
        return Command(goto="rejected_path", update={"decision": "rejected"})


# Next steps after approval
def approved_node(state: State) -> State:
    print("✅ Approved path taken.")
    return state


# Alternative path after rejection
def rejected_node(state: State) -> State:
    print("❌ Rejected path taken.")
    return state


# Build the graph
builder = StateGraph(State)
builder.add_node("generate_llm_output", generate_llm_output)
builder.add_node("human_approval", human_approval)
builder.add_node("approved_path", approved_node)
builder.add_node("rejected_path", rejected_node)

builder.set_entry_point("generate_llm_output")
builder.add_edge("generate_llm_output", "human_approval")
builder.add_edge("approved_path", END)
builder.add_edge("rejected_path", END)

checkpointer = InMemorySaver()
graph = builder.compile(checkpointer=checkpointer)

for answer in ("approve", "reject"):
    # Run until interrupt
    config = {"configurable": {"thread_id": uuid.uuid4()}}
    result = graph.invoke({}, config=config)
    print(result["__interrupt__"])

    # Simulate resuming with human input
    final_result = graph.invoke(Command(resume=answer), config=config)
    print(final_result)
