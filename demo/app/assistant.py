"""The demo assistant: ``intake -> enrich -> plan -> respond``, where the model decides.

Written against LangGraph's public names only, so the same file runs on
LangGraph itself (``langgraph dev`` with ``demo/langgraph.json``, graph id
``agent``) and on pyctx_web in the page's worker, which registers itself under
those names (``install_as_langgraph``). :data:`graph` is compiled without a
checkpointer: the server serving it gives it one.

``enrich`` offers the model the ``ask_user`` tool: its call becomes an interrupt
``{"question", "reason", "choices"}`` resumed with the answer's text, which goes
back to the model as the tool's result; the model may ask again, at most
:data:`MAX_QUESTIONS` times a turn. ``plan`` offers the action tools; the calls of
those with side effects wait for approval (:mod:`approval`, LangChain's HITL
shape). ``respond`` streams the answer as custom chunks ``{"token": text}``, delivered
by timers (:func:`observe.deliver`). Every node, tool and timer callback reports what
the runtime shows it as ``{"inspect": record}``; each tool call is reported as
``{"tool": ...}``.
Model calls are tasks (``think``): a node resumed after an interrupt does not call
the model again. The model is the one the run's ``context`` names (:mod:`models`).
A model that fails fails the run; since a LangGraph Server withholds the message of
such an error from the stream, the node streams it first as ``{"error": message}``.
"""

from __future__ import annotations

import functools
import json
import operator
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from actions import ACTION_SPECS, ASK_SPEC, ASK_TOOL, argument_problems, run_tool
from approval import Verdict, review
from langgraph.func import task
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt
from messages import openai_message, role_of, text_of, tool_calls
from model_error import ModelError
from models import model_for
from observe import deliver, observe

if TYPE_CHECKING:
    from protocol import ChatModel

__all__ = ["MAX_QUESTIONS", "ChatState", "DemoContext", "build_assistant", "graph"]

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


class ChatState(MessagesState, total=False):  # type: ignore[misc, call-arg]  # langgraph: untyped
    """The checkpointed state of a chat thread: ``MessagesState`` and the turn's trace."""

    request: str
    trace: Annotated[list[dict[str, Any]], operator.add]


class DemoContext(TypedDict, total=False):
    """A run's context: the model settings, never a key (see :func:`models.model_for`)."""

    model: dict[str, Any]


@task(name="think")  # type: ignore[untyped-decorator]  # langgraph: untyped
async def think(model: ChatModel, messages: list[dict[str, Any]], tools: list[Any]) -> Any:
    """One model call, saved with the node's progress: a resumed node does not ask again."""
    reply = await model.complete(messages, tools)
    return reply.to_message()


Node = Callable[[Any, Any], Awaitable[dict[str, Any]]]


def telling_model_errors(node: Node) -> Node:
    """``node``, streaming the message of a :class:`ModelError` it raises before raising it."""

    @functools.wraps(node)
    async def telling(state: ChatState, runtime: Runtime[DemoContext]) -> dict[str, Any]:
        try:
            return await node(state, runtime)
        except ModelError as error:
            runtime.stream_writer({"error": str(error)})
            raise

    return telling


def _conversation(state: ChatState, prompt: str, extra: list[Any]) -> list[dict[str, Any]]:
    history = [openai_message(m) for m in [*state.get("messages", []), *extra]]
    return [{"role": "system", "content": f"{SYSTEM}\n{prompt}"}, *history]


async def intake(state: ChatState, runtime: Runtime[DemoContext]) -> dict[str, Any]:
    """Take the newest user message as the request of this turn."""
    messages = state.get("messages", [])
    request = next((text_of(m) for m in reversed(messages) if role_of(m) == "user"), "")
    return {"request": request, "trace": [observe("node", "intake")]}


def ask(arguments: Any) -> str:
    """Ask the user the model's question (an interrupt); their answer's text."""
    problems = argument_problems(ASK_TOOL, arguments)
    if problems:
        return "The question could not be asked: " + "; ".join(problems)
    observe("tool", ASK_TOOL)
    question = {
        "question": str(arguments["question"]),
        "reason": str(arguments.get("reason") or ""),
        "choices": [str(choice) for choice in arguments.get("choices") or []],
    }
    return str(interrupt(question)).strip()


async def enrich(state: ChatState, runtime: Runtime[DemoContext]) -> dict[str, Any]:
    """Let the model ask the user through ``ask_user`` until it knows enough."""
    seen = observe("node", "enrich")
    model = model_for(runtime.context)
    added: list[dict[str, Any]] = []
    for _ in range(MAX_QUESTIONS):
        reply = await think(model, _conversation(state, ASK_PROMPT, added), [ASK_SPEC])
        asks = [call for call in tool_calls(reply) if call["name"] == ASK_TOOL]
        if not asks:
            break
        call = asks[0]  # one question at a time: the card shows one
        answer = ask(call["arguments"])
        only = next(c for c in reply["tool_calls"] if c["id"] == call["id"])
        added.append({"role": "assistant", "content": reply["content"], "tool_calls": [only]})
        added.append(
            {"role": "tool", "tool_call_id": call["id"], "name": ASK_TOOL, "content": answer}
        )
    return {"messages": added, "trace": [seen]}


def _carry_out(call: dict[str, Any], verdict: Verdict | None) -> tuple[str, str, dict[str, Any]]:
    """Run one call as the user decided: its status, its result's text, its arguments."""
    if verdict is not None and verdict.status == "rejected":
        return "rejected", verdict.message or "", verdict.arguments
    name, arguments = (call["name"], call["arguments"]) if verdict is None else verdict[1:3]
    try:
        result = run_tool(name, arguments)
    except ValueError as error:
        return "error", f"The tool could not run: {error}", arguments
    content = result if isinstance(result, str) else json.dumps(result)
    return ("ran" if verdict is None else verdict.status), content, arguments


async def plan(state: ChatState, runtime: Runtime[DemoContext]) -> dict[str, Any]:
    """Let the model call the action tools; those with side effects wait for approval."""
    seen = observe("node", "plan")
    model = model_for(runtime.context)
    reply = await think(model, _conversation(state, PLAN_PROMPT, []), list(ACTION_SPECS))
    calls = tool_calls(reply)
    if not calls:
        return {"trace": [seen]}
    verdicts = review(calls)
    messages: list[dict[str, Any]] = [reply]
    for call in calls:
        verdict = verdicts.get(call["id"])
        status, content, arguments = _carry_out(call, verdict)
        name = call["name"] if verdict is None else verdict.name
        messages.append(
            {"role": "tool", "tool_call_id": call["id"], "name": name, "content": content,
             "artifact": {"decision": status, "arguments": arguments}}
        )  # fmt: skip
        runtime.stream_writer({"tool": {"id": call["id"], "name": name, "arguments": arguments,
                               "status": status, "content": content}})  # fmt: skip
    return {"messages": messages, "trace": [seen]}


async def respond(state: ChatState, runtime: Runtime[DemoContext]) -> dict[str, Any]:
    """Stream the answer, its tokens delivered by timer callbacks."""
    seen_by_node = observe("node", "respond")
    model = model_for(runtime.context)
    timers: list[dict[str, Any]] = []

    async def on_token(token: str) -> None:
        await deliver(token, model.token_delay_ms, timers)

    reply = await model.complete(_conversation(state, ANSWER_PROMPT, []), on_token=on_token)
    return {
        "messages": [{"role": "assistant", "content": reply.content.strip()}],
        "trace": [seen_by_node, *timers[:1]],
    }


def assistant_graph() -> StateGraph:
    """The assistant's graph, not compiled."""
    builder = StateGraph(ChatState, context_schema=DemoContext)
    builder.add_node("intake", intake)
    builder.add_node("enrich", telling_model_errors(enrich))
    builder.add_node("plan", telling_model_errors(plan))
    builder.add_node("respond", telling_model_errors(respond))
    builder.add_edge(START, "intake")
    builder.add_edge("intake", "enrich")
    builder.add_edge("enrich", "plan")
    builder.add_edge("plan", "respond")
    builder.add_edge("respond", END)
    return builder


BUILDER = assistant_graph()

graph = BUILDER.compile(name="demo-assistant")
"""The assistant, as ``demo/langgraph.json`` names it (graph id ``agent``): its server
gives it a checkpointer."""


def build_assistant(checkpointer: Any) -> Any:
    """The assistant compiled over ``checkpointer`` (to run it without a server)."""
    return BUILDER.compile(checkpointer=checkpointer, name="demo-assistant")
