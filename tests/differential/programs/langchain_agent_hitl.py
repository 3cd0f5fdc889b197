"""LangChain's human-in-the-loop guide (create_agent with HumanInTheLoopMiddleware): a person
approves, edits or rejects the agent's tool calls, resumed with ``Command(resume=...)``.

A scripted chat model (a langchain-core BaseChatModel) asks for an email and a file
deletion in one reply. Batched mode: one interrupt lists both calls; the first
thread approves the email and rejects the deletion with a message, the second
edits the email's arguments and approves the deletion. Per-call mode: one
interrupt per gated call, each answered by its id; a tool not in ``interrupt_on``
runs unasked.
"""

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


def show(out):
    # per-call interrupts come in the order their calls paused (concurrent): sorted by call
    interrupts = out.get("__interrupt__", [])
    for interrupt in sorted(interrupts, key=lambda i: i.value.get("tool_call_id", "")):
        print("  interrupt", interrupt.id, interrupt.value)
    for message in out["messages"]:
        calls = [(c["name"], c["args"]) for c in getattr(message, "tool_calls", [])]
        status = f" {message.status}" if message.type == "tool" else ""
        print(f"  {message.type}{status} {message.content!r} {calls or ''}".rstrip())


batched = agent("batched")
decisions = {
    "approve+reject": [
        {"type": "approve"},
        {"type": "reject", "message": "Keep the report."},
    ],
    "edit+approve": [
        {
            "type": "edit",
            "edited_action": {"name": "send_email", "args": {"to": "bob", "body": "hello"}},
        },
        {"type": "approve"},
    ],
}
for thread, answer in decisions.items():
    config = {"configurable": {"thread_id": thread}}
    print("thread", thread)
    out = batched.invoke({"messages": [("user", "email alice, delete the report")]}, config)
    show(out)
    print(" next:", batched.get_state(config).next)
    out = batched.invoke(Command(resume={"decisions": answer}), config)
    show(out)

per_call = agent("per_call")
config = {"configurable": {"thread_id": "per-call"}}
print("thread per-call")
out = per_call.invoke({"messages": [("user", "email alice, delete the report")]}, config)
show(out)
answers = {}
for interrupt in out["__interrupt__"]:
    if interrupt.value["name"] == "delete_file":
        answers[interrupt.id] = {"type": "reject", "message": "No."}
    else:
        answers[interrupt.id] = {"type": "approve"}
out = per_call.invoke(Command(resume=answers), config)
show(out)
