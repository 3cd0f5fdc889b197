"""Streaming guide, "LLM tokens": ``stream_mode="messages"`` with a chat model in a node.

A ``MessagesState`` graph whose first node calls a LangChain chat model (a fake
that answers from a script, as the guide's model would) and whose second
node returns a message of its own; ``stream_mode="messages"`` yields each
token as a message chunk, then the second node's message, with the node and
step in the metadata. Then both modes at once with ``updates``.
"""

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph

llm = GenericFakeChatModel(
    messages=iter([AIMessage(content="hello there friend"), AIMessage(content="bye now")])
)


def call_model(state: MessagesState):
    return {"messages": [llm.invoke(state["messages"])]}


def sign_off(state: MessagesState):
    return {"messages": [AIMessage(content="-- the assistant", id="sign-off")]}


graph = (
    StateGraph(MessagesState)
    .add_node(call_model)
    .add_node(sign_off)
    .add_edge(START, "call_model")
    .add_edge("call_model", "sign_off")
    .compile(checkpointer=InMemorySaver())
)

config = {"configurable": {"thread_id": "1"}}
inputs = {"messages": [{"role": "user", "content": "hi"}]}
for message_chunk, metadata in graph.stream(inputs, config, stream_mode="messages"):
    if message_chunk.content:
        print(type(message_chunk).__name__, repr(message_chunk.content), end=" ")
        print(metadata["langgraph_node"], metadata["langgraph_step"])

config = {"configurable": {"thread_id": "2"}}
for mode, chunk in graph.stream(inputs, config, stream_mode=["messages", "updates"]):
    if mode == "messages":
        print("token", repr(chunk[0].content))
    else:
        print("update", list(chunk))
