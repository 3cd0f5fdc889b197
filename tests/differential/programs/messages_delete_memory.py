"""Memory guide, "Delete messages": the full example, with a checkpointer.

As the guide writes it: ``call_model`` then ``delete_messages`` (remove the
earliest two messages) in a ``MessagesState`` graph compiled with an
``InMemorySaver``; two ``stream_mode="values"`` runs on one thread print
``(message.type, message.content)``, the second starting from the messages
the first one left. The chat model is a fake one. Then the thread's state.
"""

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, RemoveMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph

model = GenericFakeChatModel(
    messages=iter(
        [
            AIMessage("Hi Bob! How are you doing today? Is there anything I can help you with?"),
            AIMessage("Your name is Bob."),
        ]
    )
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

checkpointer = InMemorySaver()
app = builder.compile(checkpointer=checkpointer)

config = {"configurable": {"thread_id": "1"}}

for event in app.stream(
    {"messages": [{"role": "user", "content": "hi! I'm bob"}]}, config, stream_mode="values"
):
    print([(message.type, message.content) for message in event["messages"]])

for event in app.stream(
    {"messages": [{"role": "user", "content": "what's my name?"}]}, config, stream_mode="values"
):
    print([(message.type, message.content) for message in event["messages"]])

snapshot = app.get_state(config)
print([(message.type, message.content) for message in snapshot.values["messages"]])
print(snapshot.next)
