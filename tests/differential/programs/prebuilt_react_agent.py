"""LangGraph's prebuilt ReAct agent guide (create_react_agent): a chat model calling tools.

A scripted chat model (langchain-core's GenericFakeChatModel) asks for two tools in
one reply, then answers; the agent runs with a string prompt, a checkpointer and
both versions (v1: the reply's calls in one task; v2: one task each). A tool reads
the state through InjectedState; the second turn on the same thread sees the first.
"""

from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import InjectedState, create_react_agent


class ScriptedModel(GenericFakeChatModel):
    seen: list = []  # noqa: RUF012 - a pydantic field, copied per instance

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([type(m).__name__ for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def count_messages(state: Annotated[dict, InjectedState]) -> str:
    """How many messages the conversation has."""
    return f"{len(state['messages'])} messages"


def replies():
    calls = [
        {"name": "add", "args": {"a": 2, "b": 3}, "id": "call_add"},
        {"name": "count_messages", "args": {}, "id": "call_count"},
    ]
    return iter([AIMessage("", tool_calls=calls), AIMessage("2 + 3 = 5"), AIMessage("again")])


for version in ("v1", "v2"):
    model = ScriptedModel(messages=replies(), seen=[])
    agent = create_react_agent(
        model,
        [add, count_messages],
        prompt="You add.",
        checkpointer=InMemorySaver(),
        version=version,
    )
    config = {"configurable": {"thread_id": version}}
    out = agent.invoke({"messages": [HumanMessage("what is 2 + 3?")]}, config)
    for message in out["messages"]:
        print(version, message.type, repr(message.content), getattr(message, "tool_call_id", ""))
    out = agent.invoke({"messages": [HumanMessage("and again?")]}, config)
    print(version, "second turn:", len(out["messages"]), repr(out["messages"][-1].content))
    print(version, "model read:", model.seen)
