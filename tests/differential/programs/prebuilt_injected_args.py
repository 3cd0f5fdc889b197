"""LangGraph's tool calling guide, "access the graph state, the store and the tool call id":
tools with InjectedState, InjectedStore, InjectedToolCallId and ToolRuntime in a ReAct agent.

A ``create_react_agent`` with a custom state (a ``user`` field), a checkpointer and
an ``InMemoryStore``-backed memory: one tool reads the whole state, one a state
field, one writes to the store through ``InjectedStore`` and returns a ``Command``
updating the state with its own ``ToolMessage`` (``InjectedToolCallId``), one reads
all of it through ``ToolRuntime``. The model sees only the arguments it may fill:
the tools' call schemas are printed.
"""

from typing import Annotated

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import InjectedState, InjectedStore, ToolRuntime, create_react_agent
from langgraph.prebuilt.chat_agent_executor import AgentState
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command


class State(AgentState):
    user: str
    saved: int


@tool
def count_messages(state: Annotated[dict, InjectedState]) -> str:
    """How many messages the conversation has."""
    return f"{len(state['messages'])} messages for {state['user']}"


@tool
def whoami(user: Annotated[str, InjectedState("user")]) -> str:
    """The user's name."""
    return user


@tool
def remember(
    fact: str,
    store: Annotated[BaseStore, InjectedStore()],
    user: Annotated[str, InjectedState("user")],
    call_id: Annotated[str, InjectedToolCallId],
) -> Command:
    """Remember a fact about the user."""
    store.put(("facts", user), call_id, {"fact": fact})
    saved = len(store.search(("facts", user)))
    message = ToolMessage(f"saved {fact!r}", tool_call_id=call_id)
    return Command(update={"messages": [message], "saved": saved})


@tool
def recall(topic: str, runtime: ToolRuntime) -> str:
    """Recall the facts about the user."""
    user = runtime.state["user"]
    facts = sorted(item.value["fact"] for item in runtime.store.search(("facts", user)))
    thread = runtime.config["configurable"]["thread_id"]
    return f"{topic} for {user} on {thread} ({runtime.tool_call_id}): {facts}"


TOOLS = [count_messages, whoami, remember, recall]


class ScriptedModel(BaseChatModel):
    @property
    def _llm_type(self):
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        last = messages[-1]
        if last.type == "human" and last.content == "recall":
            call = {"name": "recall", "args": {"topic": "all"}, "id": "t4"}
            reply = AIMessage("", tool_calls=[call])
        elif last.type == "human":
            calls = [
                {"name": "count_messages", "args": {}, "id": "t1"},
                {"name": "whoami", "args": {"user": "mallory"}, "id": "t2"},
                {"name": "remember", "args": {"fact": last.content}, "id": "t3"},
            ]
            reply = AIMessage("", tool_calls=calls)
        else:
            turn = max(i for i, m in enumerate(messages) if m.type == "human")
            reply = AIMessage(" | ".join(m.content for m in messages[turn:] if m.type == "tool"))
        return ChatResult(generations=[ChatGeneration(message=reply)])


for one in TOOLS:
    print(one.name, sorted(one.tool_call_schema.model_json_schema()["properties"]))

store = InMemoryStore()
agent = create_react_agent(
    ScriptedModel(), TOOLS, state_schema=State, checkpointer=InMemorySaver(), store=store
)
config = {"configurable": {"thread_id": "th"}}
for said in ("likes tea", "has a cat", "recall"):
    out = agent.invoke({"messages": [("user", said)], "user": "ada"}, config)
    print("saved:", out["saved"], "messages:", len(out["messages"]))
    for message in out["messages"][-4:]:
        name = getattr(message, "name", None)
        print(" ", message.type, name, getattr(message, "tool_call_id", ""), repr(message.content))
print(sorted((item.key, item.value["fact"]) for item in store.search(("facts", "ada"))))
