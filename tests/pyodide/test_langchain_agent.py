"""LangChain v1's ``create_agent`` with ``HumanInTheLoopMiddleware`` and a store-backed memory,
in Pyodide: on IndexedDB in Chromium, on SQLite files in Node (which has no IndexedDB).

``langchain`` and what it needs come from build/dist's "llm" wheel set; ``langgraph`` is
pyctx_web's graph, through ``install_as_langgraph()``. The model is langchain-core's
``GenericFakeChatModel`` answering from a script. Each run stops at the middleware's
interrupt, the saver and store are closed and opened again (a page reload), and the run
resumes with LangChain's decision (approve, edit or reject); the thread and the memory the
tools wrote are then read back through new saver and store objects.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

AGENT = '''
"""A LangChain v1 agent whose emails wait for a person's decision and which remembers facts."""

import json
import sqlite3
from typing import Annotated, Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain.tools import InjectedStore, ToolRuntime, tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.types import Command

SENT = []
NAMESPACE = ("memories", "ada")


class ScriptedModel(GenericFakeChatModel):
    """langchain-core's fake chat model, answering from its script whatever tools are bound."""

    def bind_tools(self, tools, **kwargs):
        return self


@tool
async def send_email(to: str, body: str) -> str:
    """Send an email."""
    SENT.append({"to": to, "body": body})
    return f"sent to {to}"


@tool
async def remember(fact: str, runtime: ToolRuntime) -> str:
    """Remember a fact about the user."""
    await runtime.store.aput(NAMESPACE, runtime.tool_call_id, {"fact": fact})
    return "remembered"


@tool
async def recall(store: Annotated[Any, InjectedStore()]) -> str:
    """Recall the facts remembered about the user."""
    items = await store.asearch(NAMESPACE)
    return "; ".join(sorted(item.value["fact"] for item in items)) or "nothing"


def call(name, args, call_id):
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


REMEMBER = call("remember", {"fact": "likes tea"}, "c-remember")
EMAIL = call("send_email", {"to": "bob@example.com", "body": "Lunch at noon?"}, "c-send")
SCRIPTS = {
    "approve": [[REMEMBER, EMAIL], [call("recall", {}, "c-recall")], "Sent; you like tea."],
    "edit": [[REMEMBER, EMAIL], "Sent to Carol."],
    "reject": [[EMAIL], "I did not send it."],
}
DECISIONS = {
    "approve": {"type": "approve"},
    "edit": {
        "type": "edit",
        "edited_action": {
            "name": "send_email",
            "args": {"to": "carol@example.com", "body": "Lunch at one?"},
        },
    },
    "reject": {"type": "reject", "message": "not today"},
}


def model_for(kind):
    replies = [
        AIMessage("", tool_calls=step, id=f"ai-{n}")
        if isinstance(step, list)
        else AIMessage(step, id=f"ai-{n}")
        for n, step in enumerate(SCRIPTS[kind], 1)
    ]
    return ScriptedModel(messages=iter(replies))


def agent(model, checkpointer, store):
    review = {
        "allowed_decisions": ["approve", "edit", "reject"],
        "description": "An email leaves the page",
    }
    return create_agent(
        model,
        tools=[send_email, remember, recall],
        middleware=[HumanInTheLoopMiddleware(interrupt_on={"send_email": review})],
        checkpointer=checkpointer,
        store=store,
    )


class IndexedDB:
    """pyctx_web's IndexedDB saver and store, on two databases of the page's origin."""

    def __init__(self, name):
        self.name = name

    def open(self):
        from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver
        from pyctx_web.graph.store.indexeddb import IndexedDBStore

        return IndexedDBSaver(f"{self.name}-threads"), IndexedDBStore(f"{self.name}-memory")

    def close(self, saver, store):
        saver.close()
        store.close()


class Sqlite:
    """pyctx_web's SQLite saver and store, on two files of Pyodide's file system."""

    def __init__(self, name):
        self.name = name

    def open(self):
        from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
        from pyctx_web.graph.store.sqlite import SqliteStore

        conn = sqlite3.connect(f"/tmp/{self.name}-memory.db", isolation_level=None)
        return SqliteSaver(f"/tmp/{self.name}-threads.db"), SqliteStore(conn)

    def close(self, saver, store):
        saver.close()
        store.conn.close()


def summary(message):
    out = {"type": message.type, "content": message.content}
    if message.type == "tool":  # its id is a fresh uuid
        out["tool_call_id"] = message.tool_call_id
        out["status"] = message.status
    else:
        out["id"] = message.id
    if getattr(message, "tool_calls", None):
        out["tool_calls"] = [[c["name"], c["args"], c["id"]] for c in message.tool_calls]
    return out


async def scenario(kind, backend):
    """Runs the agent of ``kind`` to its interrupt, opens the saver and store again (a
    reload), resumes with the decision, opens them again; what each step showed."""
    SENT.clear()
    model = model_for(kind)
    config = {"configurable": {"thread_id": f"thread-{kind}"}}
    saver, store = backend.open()
    question = HumanMessage("Email Bob about lunch. I like tea.", id="human")
    first = await agent(model, saver, store).ainvoke({"messages": [question]}, config)
    out = {
        "interrupts": [i.value for i in first["__interrupt__"]],
        "sent_before": list(SENT),
        "stored_before": [i.key for i in await store.asearch(NAMESPACE)],
        "kept_in": [type(saver).__module__, type(store).__module__],
    }
    backend.close(saver, store)
    saver, store = backend.open()
    resumed = agent(model, saver, store)
    waiting = await resumed.aget_state(config)
    out["waiting_next"] = list(waiting.next)
    out["waiting_interrupts"] = [i.value for i in waiting.interrupts]
    final = await resumed.ainvoke(Command(resume={"decisions": [DECISIONS[kind]]}), config)
    out["final"] = [summary(m) for m in final["messages"]]
    out["final_interrupts"] = len(final.get("__interrupt__", []))
    out["sent"] = list(SENT)
    backend.close(saver, store)
    saver, store = backend.open()
    saved = await agent(model, saver, store).aget_state(config)
    out["saved"] = [summary(m) for m in saved.values["messages"]]
    out["saved_next"] = list(saved.next)
    out["memory"] = {i.key: i.value for i in await store.asearch(NAMESPACE)}
    backend.close(saver, store)
    return json.loads(json.dumps(out))
'''

_INSTALL = """
import base64, pathlib, sys
folder = pathlib.Path("/tmp/lc_hitl")
folder.mkdir(parents=True, exist_ok=True)
(folder / "lc_hitl_agent.py").write_bytes(base64.b64decode("%s"))
sys.path.insert(0, str(folder))
"""

_SCENARIO = """
from pyctx_web.graph import install_as_langgraph
install_as_langgraph()
import json, lc_hitl_agent
backend = getattr(lc_hitl_agent, "%s")("%s")
json.dumps(await lc_hitl_agent.scenario("%s", backend))
"""

_DROP = """
from pyodide.code import run_js
drop = run_js(
    "(name) => new Promise((ok, fail) => {"
    " const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = fail; })"
)
for name in %r:
    await drop(name)
"""

REVIEW = {
    "action_requests": [
        {
            "name": "send_email",
            "args": {"to": "bob@example.com", "body": "Lunch at noon?"},
            "description": "An email leaves the page",
        }
    ],
    "review_configs": [
        {"action_name": "send_email", "allowed_decisions": ["approve", "edit", "reject"]}
    ],
}
"""The interrupt's value: LangChain's HITLRequest for the one email call."""

HUMAN = {"type": "human", "content": "Email Bob about lunch. I like tea.", "id": "human"}
REMEMBER = ["remember", {"fact": "likes tea"}, "c-remember"]
EMAIL = ["send_email", {"to": "bob@example.com", "body": "Lunch at noon?"}, "c-send"]
REMEMBERED = {"type": "tool", "content": "remembered", "tool_call_id": "c-remember"}
EDIT_NOTICE = (
    "Note: a human reviewer replaced this tool call before it ran. The call recorded in your "
    "message is the one you produced, not the one that executed. This was intentional and "
    "authorized. Do not re-issue your original call. Executed instead: send_email with "
    'arguments {"to": "carol@example.com", "body": "Lunch at one?"}.\n\nTool response:\n'
    "sent to carol@example.com"
)


def _ai(number: int, content: str = "", *calls: list[Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"type": "ai", "content": content, "id": f"ai-{number}"}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def _tool(call_id: str, content: str, status: str = "success") -> dict[str, Any]:
    return {"type": "tool", "content": content, "tool_call_id": call_id, "status": status}


@pytest.fixture(scope="module")
def agent_app(pyctx_module: Any) -> Any:
    """One Pyodide per module with pyctx_web, langchain from build/dist and the agent program."""
    pyctx_module.load_package(["langchain"])
    source = base64.b64encode(AGENT.encode("utf-8")).decode("ascii")
    pyctx_module.run_async(_INSTALL % source)
    return pyctx_module


def _run(app: Any, kind: str) -> dict[str, Any]:
    """The scenario of ``kind`` on IndexedDB (Chromium) or SQLite files (Node)."""
    name = f"pyctx-lc-{kind}"
    backend = "Sqlite" if app.browser == "node" else "IndexedDB"
    try:
        out: dict[str, Any] = json.loads(app.run_async(_SCENARIO % (backend, name, kind)))
    finally:
        if backend == "IndexedDB":
            app.run_async(_DROP % ([f"{name}-threads", f"{name}-memory"],))
    kind_of = backend.lower()
    assert out["kept_in"] == [
        f"pyctx_web.graph.{part}.{kind_of}" for part in ("checkpoint", "store")
    ]
    return out


def _waited_for_the_review(out: dict[str, Any]) -> None:
    """The run stopped before any email went out, and the thread read back waits for it."""
    assert out["interrupts"] == [REVIEW]
    assert out["sent_before"] == []
    assert out["waiting_next"] == ["HumanInTheLoopMiddleware.after_model"]
    assert out["waiting_interrupts"] == [REVIEW]
    assert out["final_interrupts"] == 0
    assert out["saved"] == out["final"]
    assert out["saved_next"] == []


def test_loading_langchain_brings_no_langgraph(agent_app: Any) -> None:
    """langchain loads from build/dist without a langgraph distribution, and its agents
    import once install_as_langgraph() has made pyctx_web's graph LangGraph."""
    found = agent_app.run(
        "import importlib.metadata as m, json\n"
        "try:\n    m.distribution('langgraph')\n    lg = 'installed'\n"
        "except m.PackageNotFoundError:\n    lg = None\n"
        "from pyctx_web.graph import install_as_langgraph\n"
        "install_as_langgraph()\n"
        "import langchain.agents, langgraph\n"
        "json.dumps([m.version('langchain'), lg, langgraph.__pyctx_web__,"
        " langchain.agents.create_agent.__module__])"
    )
    assert json.loads(found) == ["1.5.2", None, True, "langchain.agents.factory"]


def test_an_approved_email_is_sent_and_the_memory_tool_stores_its_fact(agent_app: Any) -> None:
    """Approved after a reload, the email goes out once, the memory tool's fact is in the store
    and read back by the recall tool, and the whole thread survives another reload."""
    out = _run(agent_app, "approve")
    _waited_for_the_review(out)
    assert out["stored_before"] == []
    assert out["final"] == [
        HUMAN,
        _ai(1, "", REMEMBER, EMAIL),
        {**REMEMBERED, "status": "success"},
        _tool("c-send", "sent to bob@example.com"),
        _ai(2, "", ["recall", {}, "c-recall"]),
        _tool("c-recall", "likes tea"),
        _ai(3, "Sent; you like tea."),
    ]
    assert out["sent"] == [{"to": "bob@example.com", "body": "Lunch at noon?"}]
    assert out["memory"] == {"c-remember": {"fact": "likes tea"}}


def test_an_edited_email_goes_out_as_the_reviewer_wrote_it(agent_app: Any) -> None:
    """Edited after a reload, the email goes out with the reviewer's arguments, the model is
    told so, and the memory tool called beside it still stores its fact."""
    out = _run(agent_app, "edit")
    _waited_for_the_review(out)
    assert out["final"] == [
        HUMAN,
        _ai(1, "", REMEMBER, EMAIL),
        {**REMEMBERED, "status": "success"},
        _tool("c-send", EDIT_NOTICE),
        _ai(2, "Sent to Carol."),
    ]
    assert out["sent"] == [{"to": "carol@example.com", "body": "Lunch at one?"}]
    assert out["memory"] == {"c-remember": {"fact": "likes tea"}}


def test_a_rejected_email_is_not_sent_and_the_model_hears_why(agent_app: Any) -> None:
    """Rejected after a reload, the email is not sent and the model gets the reviewer's
    reason as the tool's error result."""
    out = _run(agent_app, "reject")
    _waited_for_the_review(out)
    assert out["final"] == [
        HUMAN,
        _ai(1, "", EMAIL),
        _tool(
            "c-send", "User rejected the tool call for `send_email` with reason: not today", "error"
        ),
        _ai(2, "I did not send it."),
    ]
    assert out["sent"] == []
    assert out["memory"] == {}
