"""Streaming guide, "LLM tokens", with nodes that return their messages in every form.

The guide's ``stream_mode="messages"`` also carries the messages a node returns
that no chat model streamed. Here each node of a ``MessagesState`` graph returns
its reply in another form: a message object, a plain dict (as chat-completions
writes it), a ``(role, content)`` tuple, a string, one message not in a list,
a ``Command(update=...)``, a message under a key of its own or nested deeper, a
message the node was given, one without an id. Only the message objects
stream; the state holds them all as messages.
"""

from typing import Annotated, Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command


class State(MessagesState):
    extra: Annotated[list, add_messages]
    note: Any


def as_object(state: State):
    return {"messages": [AIMessage(content="object", id="m-object")]}


def as_dict(state: State):
    return {"messages": [{"role": "ai", "content": "dict", "id": "m-dict"}]}


def as_assistant_dict(state: State):
    return {"messages": [{"role": "assistant", "content": "assistant dict", "id": "m-adict"}]}


def as_tuple(state: State):
    return {"messages": [("ai", "tuple")]}


def as_string(state: State):
    return {"messages": "a string"}


def single_object(state: State):
    return {"messages": AIMessage(content="single", id="m-single")}


def single_dict(state: State):
    return {"messages": {"role": "ai", "content": "single dict", "id": "m-sdict"}}


def by_command(state: State):
    return Command(
        update={
            "messages": [
                AIMessage(content="command object", id="m-cobject"),
                {"role": "ai", "content": "command dict", "id": "m-cdict"},
            ]
        }
    )


def other_keys(state: State):
    return {
        "extra": [AIMessage(content="extra", id="m-extra"), {"role": "ai", "content": "x"}],
        "note": {"inner": [AIMessage(content="nested", id="m-nested")]},
    }


def given_back(state: State):
    return {"messages": [state["messages"][0], AIMessage(content="without id")]}


def mixed(state: State):
    return {
        "messages": [
            HumanMessage(content="human object", id="m-human"),
            {"role": "user", "content": "user dict", "id": "m-udict"},
            {"type": "ai", "content": "typed dict", "id": "m-tdict"},
        ]
    }


NODES = [
    as_object,
    as_dict,
    as_assistant_dict,
    as_tuple,
    as_string,
    single_object,
    single_dict,
    by_command,
    other_keys,
    given_back,
    mixed,
]

builder = StateGraph(State)
previous = START
for node in NODES:
    builder.add_node(node)
    builder.add_edge(previous, node.__name__)
    previous = node.__name__
graph = builder.compile(checkpointer=InMemorySaver())


def show(message: Any) -> str:
    if isinstance(message, dict):
        return f"dict {message}"
    return f"{type(message).__name__} {message.content!r} {message.id}"


config = {"configurable": {"thread_id": "1"}}
inputs = {"messages": [{"role": "user", "content": "hi", "id": "m-input"}]}
for message, metadata in graph.stream(inputs, config, stream_mode="messages"):
    print(metadata["langgraph_node"], show(message))

state = graph.get_state(config).values
print([show(m) for m in state["messages"]])
print([show(m) for m in state["extra"]])

config = {"configurable": {"thread_id": "2"}}
for mode, chunk in graph.stream(inputs, config, stream_mode=["updates", "messages"]):
    if mode == "messages":
        print("message", show(chunk[0]))
    else:
        print("update", list(chunk))

print("without a checkpointer")
plain = builder.compile()
for message, metadata in plain.stream(inputs, stream_mode="messages"):
    print(metadata["langgraph_node"], show(message))
