"""Human-in-the-loop guide, "Multiple interrupts": two parallel nodes, one resume map.

Follows the guide's extended example "resume multiple interrupts":
``human_node_1`` and ``human_node_2`` both start from ``START`` and call
``interrupt()``; the invoke result lists both interrupts; one
``Command(resume={interrupt_id: value, ...})`` resumes them together. The
guide's ``RunnableConfig`` annotation (from ``langchain_core``) is left out.
"""

import uuid
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.constants import START
from langgraph.graph import StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    text_1: str
    text_2: str


def human_node_1(state: State):
    value = interrupt({"text_to_revise": state["text_1"]})
    return {"text_1": value}


def human_node_2(state: State):
    value = interrupt({"text_to_revise": state["text_2"]})
    return {"text_2": value}


# Build the graph
graph_builder = StateGraph(State)
graph_builder.add_node("human_node_1", human_node_1)
graph_builder.add_node("human_node_2", human_node_2)

# Add both nodes in parallel from START
graph_builder.add_edge(START, "human_node_1")
graph_builder.add_edge(START, "human_node_2")

checkpointer = InMemorySaver()
graph = graph_builder.compile(checkpointer=checkpointer)

# Pass a thread ID to the graph to run it
thread_id = str(uuid.uuid4())
config = {"configurable": {"thread_id": thread_id}}

# Run the graph until both interrupts are hit
result = graph.invoke({"text_1": "original text 1", "text_2": "original text 2"}, config=config)

interrupts = result["__interrupt__"]
print(sorted(i.value["text_to_revise"] for i in interrupts))
print(len({i.id for i in interrupts}))
print(sorted(graph.get_state(config).next))
resume_map = {i.id: f"edited text for {i.value['text_to_revise']}" for i in interrupts}

# Resume with mapping of interrupt IDs to values
print(graph.invoke(Command(resume=resume_map), config=config))
# > {'text_1': 'edited text for original text 1', 'text_2': 'edited text for original text 2'}
print(graph.get_state(config).next)
