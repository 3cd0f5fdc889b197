"""Graph API guide, "Define and update state": a list of messages, then reducers over it.

Follows "Update state" (a node returns ``messages + [new_message]``, no
reducer), "Process state updates with reducers" (``Annotated[list[AnyMessage],
add]``) and "MessagesState" (``add_messages``, the input given in OpenAI
format); each result is printed with ``pretty_print()``. Then the concepts
page's "Serialization" input (``{"type": "human", "content": ...}``), and a
``MessagesState`` subclass whose node replaces a message by giving its id.
"""

from typing import Annotated

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


class State(TypedDict):
    messages: list[AnyMessage]
    extra_field: int


def node(state: State):
    messages = state["messages"]
    new_message = AIMessage("Hello!")
    return {"messages": messages + [new_message], "extra_field": 10}  # noqa: RUF005


builder = StateGraph(State)
builder.add_node(node)
builder.set_entry_point("node")
graph = builder.compile()

result = graph.invoke({"messages": [HumanMessage("Hi")]})
print(result)

for message in result["messages"]:
    message.pretty_print()


def add(left, right):
    """Can also import `add` from the `operator` built-in."""
    return left + right


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add]
    extra_field: int


def node(state: State):
    new_message = AIMessage("Hello!")
    return {"messages": [new_message], "extra_field": 10}


graph = StateGraph(State).add_node(node).add_edge(START, "node").compile()

result = graph.invoke({"messages": [HumanMessage("Hi")]})

for message in result["messages"]:
    message.pretty_print()


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    extra_field: int


def node(state: State):
    new_message = AIMessage("Hello!")
    return {"messages": [new_message], "extra_field": 10}


graph = StateGraph(State).add_node(node).set_entry_point("node").compile()

input_message = {"role": "user", "content": "Hi"}

result = graph.invoke({"messages": [input_message]})

for message in result["messages"]:
    message.pretty_print()
print(result)

# Serialization: the update is deserialized into LangChain messages.
result = graph.invoke({"messages": [{"type": "human", "content": "message"}]})
print(result["messages"][0])
print(result["messages"][-1].content)


class State(MessagesState):
    edits: int


def correct(state: State):
    first = state["messages"][0]
    return {"messages": [HumanMessage("Hello again", id=first.id)], "edits": 1}


graph = StateGraph(State).add_node(correct).add_edge(START, "correct").compile()
result = graph.invoke({"messages": [HumanMessage("Helo", id="1"), AIMessage("Hi!", id="2")]})
print(result)
