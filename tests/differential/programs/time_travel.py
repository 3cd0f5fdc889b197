"""Time-travel guide, "Use time-travel" in a workflow: history, fork with update_state, replay.

Follows the guide: ``topic`` and ``joke`` as ``NotRequired`` keys, two nodes
that ask a model (here a fixed fake), a thread id given as ``uuid.uuid4()``,
``list(graph.get_state_history(config))`` newest first, ``states[1]`` (before
``write_joke``), ``update_state(selected_state.config, values={"topic":
"chickens"})`` and ``graph.invoke(None, new_config)``. Then replays the same
past checkpoint without an update, and lists the forked history.
"""

import uuid
from typing import NotRequired

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    topic: NotRequired[str]
    joke: NotRequired[str]


class FakeMessage:
    def __init__(self, content: str) -> None:
        self.content = content


class FakeLLM:
    """Answers as a model would, from the prompt alone."""

    def invoke(self, prompt: str) -> FakeMessage:
        print(f"LLM called with: {prompt}")
        if prompt.startswith("Write a short joke about "):
            topic = prompt.removeprefix("Write a short joke about ")
            return FakeMessage(f"Why did the {topic} cross the road? To get to the other side.")
        return FakeMessage("socks in the dryer")


llm = FakeLLM()


def generate_topic(state: State):
    """LLM call to generate a topic for the joke"""
    msg = llm.invoke("Give me a funny topic for a joke")
    return {"topic": msg.content}


def write_joke(state: State):
    """LLM call to write a joke based on the topic"""
    msg = llm.invoke(f"Write a short joke about {state['topic']}")
    return {"joke": msg.content}


# Build workflow
workflow = StateGraph(State)

# Add nodes
workflow.add_node("generate_topic", generate_topic)
workflow.add_node("write_joke", write_joke)

# Add edges to connect nodes
workflow.add_edge(START, "generate_topic")
workflow.add_edge("generate_topic", "write_joke")
workflow.add_edge("write_joke", END)

# Compile
checkpointer = InMemorySaver()
graph = workflow.compile(checkpointer=checkpointer)

config = {
    "configurable": {
        "thread_id": uuid.uuid4(),
    }
}
state = graph.invoke({}, config)

print(state["topic"])
print()
print(state["joke"])

# The states are returned in reverse chronological order.
states = list(graph.get_state_history(config))

for state in states:
    print(state.next)
    print(state.config["configurable"]["checkpoint_id"])
    print()

# This is the state before last (states are listed in chronological order)
selected_state = states[1]
print(selected_state.next)
print(selected_state.values)

new_config = graph.update_state(selected_state.config, values={"topic": "chickens"})
print(new_config)

print(graph.invoke(None, new_config))

# Replay the same past checkpoint as it was: write_joke runs again on its topic.
print(graph.invoke(None, selected_state.config))

for state in graph.get_state_history(config):
    print(state.values, state.next, state.metadata["source"], state.metadata["step"])
