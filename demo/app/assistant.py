"""The demo assistant: ``intake -> enrich -> plan -> respond``, where the model decides.

``enrich`` offers the model an ``ask_user`` tool: when the model calls it, the
tool asks the user (``interrupt``: a ``needs_input`` card) and its answer goes
back to the model, which may ask again (at most :data:`MAX_QUESTIONS` per turn).
``plan`` offers the model the action tools; ``send_email`` and
``schedule_meeting`` have side effects, so ``HumanInTheLoopMiddleware`` holds
them for the user's approval. ``respond`` streams the answer token by token,
each token delivered by a JavaScript timer bound with :mod:`pyctx_web.jsbridge`
(a ``loop.call_later`` outside Pyodide). Every node, tool and timer callback
reports what the context store shows it as ``inspect`` events.
"""

from __future__ import annotations

import functools
import json
import operator
from typing import TYPE_CHECKING, Annotated, Any

from actions import ACTION_TOOLS, ALL_TOOLS, ask_user
from observe import deliver, observe

from pyctx_web.graph import END, START, MessagesState, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.middleware import HumanInTheLoopMiddleware
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.state import CompiledStateGraph

if TYPE_CHECKING:
    from protocol import ChatModel

__all__ = ["MAX_QUESTIONS", "AssistantData", "ChatState", "build_assistant"]

MAX_QUESTIONS = 3
"""The most questions ``enrich`` asks in one turn; then the model must go on."""

SYSTEM = (
    "You are a concise assistant in a web page. The user's tools act for real, "
    "so the user approves actions with side effects."
)
ASK_PROMPT = (
    "If the request is too vague to act on, call ask_user with one short question, "
    f"why you ask, and a few choices. Ask at most {MAX_QUESTIONS} questions; "
    "when the request is clear, reply with no tool call and no text."
)
PLAN_PROMPT = "Carry out the request with the tools: call the ones it needs, then stop."
ANSWER_PROMPT = "Tell the user in a few sentences what was done, or what you will do."


class ChatState(MessagesState, total=False):
    """The checkpointed state of a chat thread: ``MessagesState`` and the turn's trace."""

    request: str
    trace: Annotated[list[dict[str, Any]], operator.add]


class AssistantData:
    """Per-run context: the model to answer with; never checkpointed, so no API key is stored.

    Without a model, the offline one. (A plain class, not a dataclass: the worker defines it
    at start, where each dataclass costs milliseconds in Pyodide, and creates one per turn.)
    """

    __slots__ = ("model",)

    def __init__(self, model: ChatModel | None = None) -> None:
        if model is None:
            from offline_model import OfflineModel  # imported with the first turn

            model = OfflineModel()
        self.model: ChatModel = model
        """The model chosen in the settings panel."""


async def _think(model: ChatModel, messages: list[dict[str, Any]], tools: list[Any]) -> Any:
    reply = await model.complete(messages, tools)
    return reply.to_message()


@functools.cache
def _think_task() -> Any:
    from pyctx_web.graph.func import task

    return task(name="think")(_think)


def think(model: ChatModel, messages: list[dict[str, Any]], tools: list[Any]) -> Any:
    """One model call as the task ``think``, saved with the node's progress: a resumed node
    does not ask again. (The task is made at its first call: the functional API comes with
    the first turn, not at the worker's start.)"""
    return _think_task()(model, messages, tools)


def _conversation(state: ChatState, prompt: str, extra: list[Any]) -> list[dict[str, Any]]:
    from pyctx_web.chat import openai_message  # with the first turn (FIRST_TURN_MODULES)

    history = [openai_message(m) for m in [*state.get("messages", []), *extra]]
    return [{"role": "system", "content": f"{SYSTEM}\n{prompt}"}, *history]


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"id": c["id"], "name": c["function"]["name"],
         "arguments": json.loads(c["function"]["arguments"] or "{}")}
        for c in message.get("tool_calls") or ()
    ]  # fmt: skip


async def intake(state: ChatState, runtime: Runtime[AssistantData]) -> dict[str, Any]:
    """Take the newest user message as the request of this turn."""
    from pyctx_web.chat import openai_message

    messages = [openai_message(m) for m in state.get("messages", [])]
    request = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    return {"request": request, "trace": [observe("node", "intake")]}


async def enrich(state: ChatState, runtime: Runtime[AssistantData]) -> dict[str, Any]:
    """Let the model ask the user through ``ask_user`` until it knows enough."""
    seen = observe("node", "enrich")
    added: list[dict[str, Any]] = []
    for _ in range(MAX_QUESTIONS):
        conversation = _conversation(state, ASK_PROMPT, added)
        reply = await think(runtime.context.model, conversation, [ask_user.to_openai()])
        asks = [call for call in _calls(reply) if call["name"] == "ask_user"]
        if not asks:
            break
        call = asks[0]  # one question at a time: the card shows one
        answer = await runtime.call_tool("ask_user", call["arguments"])
        only = next(c for c in reply["tool_calls"] if c["id"] == call["id"])
        added.append({"role": "assistant", "content": reply["content"], "tool_calls": [only]})
        added.append(
            {"role": "tool", "tool_call_id": call["id"], "name": "ask_user", "content": answer}
        )
    return {"messages": added, "trace": [seen]}


async def plan(state: ChatState, runtime: Runtime[AssistantData]) -> dict[str, Any]:
    """Let the model call the action tools; those with side effects wait for approval."""
    seen = observe("node", "plan")
    tools = [t.to_openai() for t in ACTION_TOOLS]
    reply = await think(runtime.context.model, _conversation(state, PLAN_PROMPT, []), tools)
    calls = _calls(reply)
    if not calls:
        return {"trace": [seen]}
    results = await runtime.call_tools(calls)
    messages: list[dict[str, Any]] = [reply]
    for call, done in zip(calls, results, strict=True):
        content = done.result if isinstance(done.result, str) else json.dumps(done.result)
        artifact = {"decision": done.status, "arguments": done.arguments}
        messages.append(
            {"role": "tool", "tool_call_id": call["id"], "name": done.name,
             "content": content, "artifact": artifact}
        )  # fmt: skip
        runtime.stream_writer({"tool": {"id": call["id"], "name": done.name,
                               "arguments": done.arguments, "status": done.status,
                               "content": content}})  # fmt: skip
    return {"messages": messages, "trace": [seen]}


async def respond(state: ChatState, runtime: Runtime[AssistantData]) -> dict[str, Any]:
    """Stream the answer, each token delivered by a timer callback."""
    seen_by_node = observe("node", "respond")
    model = runtime.context.model
    timers: list[dict[str, Any]] = []
    count = 0

    async def on_token(token: str) -> None:
        nonlocal count
        count += 1
        await deliver(token, model.token_delay_ms, timers)

    reply = await model.complete(_conversation(state, ANSWER_PROMPT, []), on_token=on_token)
    prompt_tokens = len(str(state.get("request", "")).split())
    runtime.add_usage(prompt_tokens=prompt_tokens, completion_tokens=count)
    return {
        "messages": [{"role": "assistant", "content": reply.content.strip()}],
        "trace": [seen_by_node, *timers[:1]],
    }


def assistant_graph() -> tuple[StateGraph, HumanInTheLoopMiddleware]:
    """The assistant's graph, not compiled, and the middleware that holds its side effects."""
    builder = StateGraph(ChatState)
    builder.add_node("intake", intake)
    builder.add_node("enrich", enrich)
    builder.add_node("plan", plan)
    builder.add_node("respond", respond)
    builder.add_edge(START, "intake")
    builder.add_edge("intake", "enrich")
    builder.add_edge("enrich", "plan")
    builder.add_edge("plan", "respond")
    builder.add_edge("respond", END)
    approval = HumanInTheLoopMiddleware(
        interrupt_on={
            "send_email": {
                "allowed_decisions": ["approve", "edit", "reject"],
                "description": "An email cannot be called back once it is sent.",
            },
            "schedule_meeting": {
                "allowed_decisions": ["approve", "reject"],
                "description": "Scheduling sends invitations to every attendee.",
            },
        },
        description_prefix="This action needs your approval",
    )
    return builder, approval


GRAPH, APPROVAL = assistant_graph()
"""Built once, at import: each :func:`build_assistant` only compiles it (as LangGraph's
examples build a ``StateGraph`` at module level and compile it per checkpointer)."""


def build_assistant(checkpointer: Checkpointer) -> CompiledStateGraph:
    """Compile the demo assistant over ``checkpointer``. Each run is given its
    :class:`AssistantData` (``context=``): the graph has no default one, which would make
    the offline model at start."""
    return GRAPH.compile(
        checkpointer=checkpointer,
        name="demo-assistant",
        tools=ALL_TOOLS,
        middleware=[APPROVAL],
    )
