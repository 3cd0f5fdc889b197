"""Memory guide, "Delete messages": ``RemoveMessage`` and ``REMOVE_ALL_MESSAGES``.

The guide's two ``delete_messages`` nodes (remove the earliest two messages;
remove all of them) run after a fake chat model in a ``MessagesState`` graph
built with ``add_sequence``, without a checkpointer: each conversation is
given whole in the input. Each ``stream_mode="values"`` chunk prints
``(message.type, message.content)`` as the guide does. Deleting an id that is
not in the list raises ``ValueError``.
"""

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, RemoveMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES

model = GenericFakeChatModel(
    messages=iter([AIMessage("Hi Bob! How can I help?"), AIMessage("Your name is Bob.")])
)


def delete_messages(state):
    messages = state["messages"]
    if len(messages) > 2:
        # remove the earliest two messages
        return {"messages": [RemoveMessage(id=m.id) for m in messages[:2]]}


def call_model(state: MessagesState):
    response = model.invoke(state["messages"])
    return {"messages": response}


builder = StateGraph(MessagesState)
builder.add_sequence([call_model, delete_messages])
builder.add_edge(START, "call_model")
app = builder.compile()

for event in app.stream(
    {"messages": [{"role": "user", "content": "hi! I'm bob"}]},
    stream_mode="values",
):
    print([(message.type, message.content) for message in event["messages"]])

for event in app.stream(
    {
        "messages": [
            {"role": "user", "content": "hi! I'm bob"},
            {"role": "assistant", "content": "Hi Bob! How can I help?"},
            {"role": "user", "content": "what's my name?"},
        ]
    },
    stream_mode="values",
):
    print([(message.type, message.content) for message in event["messages"]])


def delete_all_messages(state):
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)]}


app = (
    StateGraph(MessagesState)
    .add_sequence([delete_all_messages])
    .add_edge(START, "delete_all_messages")
    .compile()
)
print(app.invoke({"messages": ["one", "two", "three"]}))


def keep_last(state):
    # Remove everything, then write back the last message.
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), state["messages"][-1]]}


app = StateGraph(MessagesState).add_node(keep_last).add_edge(START, "keep_last").compile()
result = app.invoke({"messages": ["one", "two", "three"]})
print([(message.type, message.content) for message in result["messages"]])


def delete_unknown(state):
    return {"messages": [RemoveMessage(id="no-such-id")]}


app = StateGraph(MessagesState).add_node(delete_unknown).add_edge(START, "delete_unknown").compile()
try:
    app.invoke({"messages": ["one"]})
except ValueError as error:
    print("ValueError:", error)
