"""LangChain's human-in-the-loop guide (create_agent with HumanInTheLoopMiddleware), async and
streamed: the agent is read with ``astream`` (updates and messages), paused, inspected with
``aget_state`` and resumed with a "respond" and an "approve" decision.

A scripted chat model (a langchain-core BaseChatModel) asks for an email and a file
deletion in one reply, and reads a file unasked. The person answers the email call
themselves ("respond": their text is the tool's answer) and approves the deletion.
"""

import asyncio

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command


class ScriptedModel(BaseChatModel):
    @property
    def _llm_type(self):
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        if messages[-1].type == "human":
            calls = [
                {"name": "send_email", "args": {"to": "alice", "body": "hi"}, "id": "e1"},
                {"name": "delete_file", "args": {"path": "report.txt"}, "id": "d1"},
                {"name": "read_file", "args": {"path": "notes.txt"}, "id": "r1"},
            ]
            reply = AIMessage("", tool_calls=calls)
        else:
            turn = max(i for i, m in enumerate(messages) if m.type == "human")
            reply = AIMessage(" / ".join(m.content for m in messages[turn:] if m.type == "tool"))
        return ChatResult(generations=[ChatGeneration(message=reply)])


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return f"sent {body!r} to {to}"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


def agent(mode):
    gate = HumanInTheLoopMiddleware(
        interrupt_on={
            "send_email": True,
            "delete_file": {"allowed_decisions": ["approve", "reject"]},
            "read_file": False,
        },
        interrupt_mode=mode,
    )
    return create_agent(
        ScriptedModel(),
        [send_email, delete_file, read_file],
        middleware=[gate],
        checkpointer=InMemorySaver(),
    )


async def main():
    batched = agent("batched")
    config = {"configurable": {"thread_id": "a"}}
    question = {"messages": [("user", "email alice, delete the report")]}
    async for mode, chunk in batched.astream(question, config, stream_mode=["updates", "messages"]):
        if mode == "messages":
            message, metadata = chunk
            print("message", message.type, repr(message.content), metadata["langgraph_node"])
            continue
        for node, value in chunk.items():
            if node == "__interrupt__":
                print("update", node, [i.value["action_requests"] for i in value])
            else:
                print("update", node, [(m.type, m.content) for m in value["messages"]])
    state = await batched.aget_state(config)
    print("next", state.next, [i.value["review_configs"] for i in state.interrupts])
    answer = {"decisions": [{"type": "respond", "message": "I wrote to her."}, {"type": "approve"}]}
    tools = []  # the tools run concurrently: their updates come in the order they finish
    async for chunk in batched.astream(Command(resume=answer), config, stream_mode="updates"):
        for node, value in chunk.items():
            messages = (value or {}).get("messages", [])
            shown = [(m.type, getattr(m, "status", ""), m.content) for m in messages]
            if node == "tools":
                tools.append(shown)
            else:
                print("update", node, shown, "after", len(tools), "tool updates")
    print("tool updates", sorted(tools))
    state = await batched.aget_state(config)
    print(
        "done",
        state.next,
        len(state.values["messages"]),
        repr(state.values["messages"][-1].content),
    )


if __name__ == "__main__":
    asyncio.run(main())
