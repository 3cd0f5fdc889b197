"""Human review of tool calls: the question a batch of calls asks, and the decisions answering it.

:func:`review` is what :class:`~pyctx_web.graph.middleware.HumanInTheLoopMiddleware`
does before a batch of tool calls runs: it asks one ``interrupt()`` about the
calls some such middleware names and turns the reviewer's decisions into a
:class:`Verdict` per call, or refuses them with
:class:`~pyctx_web.graph.errors.ResumeError`. The engine writes nothing of a
node attempt that refuses the answers it was resumed with, so the question
still waits, unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

from pyctx_web._records import record
from pyctx_web.context import is_awaitable
from pyctx_web.errors import ArgumentTypeError, UsageError
from pyctx_web.graph._engine.frames import TaskFrame, current_task
from pyctx_web.graph._engine.interrupts import interrupt, interrupt_id
from pyctx_web.graph._runctx.hitl import DECISIONS, HumanInTheLoopMiddleware, ReviewConfig
from pyctx_web.graph._runctx.jsonschema import validate
from pyctx_web.graph.errors import ResumeError, ToolArgumentError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.runtime import Runtime
    from pyctx_web.graph._runctx.middleware import AgentMiddleware
    from pyctx_web.graph._runctx.tools import Tool

__all__ = ["PlannedCall", "Verdict", "review"]

_KEYS: Final = {
    "approve": ("type",),
    "edit": ("type", "edited_action"),
    "reject": ("type", "message"),
}
"""The keys each decision type may have."""


@record(frozen=True, slots=True)
class PlannedCall:
    """A tool call a node asked for, before review."""

    name: str
    arguments: dict[str, Any]
    id: str | None = None


@record(frozen=True, slots=True)
class Verdict:
    """A reviewer's decision on one call: what runs, or the reject message."""

    status: Literal["approved", "edited", "rejected"]
    name: str
    arguments: dict[str, Any]
    message: str | None = None


@record(frozen=True, slots=True)
class _Reviewed:
    """A call under review, with the middleware and config that review it."""

    call: PlannedCall
    middleware: HumanInTheLoopMiddleware
    config: ReviewConfig


def _reviewer(middleware: Sequence[AgentMiddleware[Any]], call: PlannedCall) -> _Reviewed | None:
    for item in middleware:
        if isinstance(item, HumanInTheLoopMiddleware):
            config = item.interrupt_on.get(call.name)
            if config is not None:
                return _Reviewed(call, item, config)
    return None


def _plain(value: Any) -> Any:
    """``value`` with mappings as dicts and tuples as lists, as a checkpoint gives it back."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


async def _description(item: _Reviewed, runtime: Runtime[Any]) -> str:
    call, described = item.call, item.config.description
    if described is None:
        return f"{item.middleware.description_prefix}\n\nTool: {call.name}\nArgs: {call.arguments}"
    if isinstance(described, str):
        return described
    call_dict = {"name": call.name, "arguments": call.arguments, "id": call.id}
    text = described(call_dict, runtime)
    if is_awaitable(text):
        text = await text
    if not isinstance(text, str):
        raise ArgumentTypeError(
            f"the description function of interrupt_on[{call.name!r}] must return a str, "
            f"not {type(text).__name__!r}"
        )
    return text


async def _question(
    items: list[_Reviewed], tools: Mapping[str, Tool], runtime: Runtime[Any]
) -> dict[str, Any]:
    """The interrupt value: LangChain's ``HITLRequest``, with ``arguments`` spelled out."""
    requests = [
        {
            "name": item.call.name,
            "arguments": _plain(item.call.arguments),
            "description": await _description(item, runtime),
        }
        for item in items
    ]
    configs: dict[str, dict[str, Any]] = {}
    for item in items:
        name = item.call.name
        if name not in configs:
            schema = item.config.arguments_schema or tools[name].parameters
            configs[name] = {
                "action_name": name,
                "allowed_decisions": list(item.config.allowed_decisions),
                "arguments_schema": _plain(schema),
            }
    return {"action_requests": requests, "review_configs": list(configs.values())}


def _same_calls(asked: Any, question: dict[str, Any]) -> str | None:
    """Why the calls of ``question`` are not those ``asked`` about, or ``None``."""

    def calls(value: Any) -> list[tuple[Any, Any]] | None:
        requests = value.get("action_requests") if isinstance(value, Mapping) else None
        if not isinstance(requests, list):
            return None
        return [(r.get("name"), r.get("arguments")) for r in requests if isinstance(r, Mapping)]

    before, now = calls(asked), calls(question)
    if before == now:
        return None
    return (
        f"the node proposes other tool calls than the ones reviewed, so the decisions "
        f"cannot apply to them: reviewed {before!r}, proposed now {now!r}"
    )


def _refusal(frame: TaskFrame, qid: str, problems: list[str]) -> ResumeError:
    listed = "\n  ".join(problems)
    return ResumeError(
        f"the decisions on the tool calls under review were refused; nothing was stored and "
        f"interrupt {qid!r} still waits for them:\n  {listed}",
        thread_id=frame.run.thread_id or "",
        checkpoint_id=frame.checkpoint_id,
        pending_ids=[qid],
    )


def _argument_problems(
    arguments: Mapping[str, Any], tool: Tool, schema: Mapping[str, Any] | None
) -> list[str]:
    problems = [] if schema is None else validate(arguments, schema)
    try:
        tool.check(arguments)
    except ToolArgumentError as error:
        problems.extend(p for p in error.problems if p not in problems)
    return problems


def _edit(
    where: str, edited: Any, item: _Reviewed, tools: Mapping[str, Tool]
) -> Verdict | list[str]:
    if not isinstance(edited, Mapping):
        return [f"{where}: 'edited_action' must be a dict with 'name' and 'arguments'"]
    extra = sorted(str(k) for k in edited if k not in ("name", "arguments", "args"))
    if extra or ("arguments" in edited) == ("args" in edited):
        return [
            f"{where}: 'edited_action' must have 'name' and one of 'arguments' or 'args', "
            f"got keys {sorted(map(str, edited))!r}"
        ]
    name, arguments = edited.get("name"), edited.get("arguments", edited.get("args"))
    tool = tools.get(name) if isinstance(name, str) else None
    if tool is None or not isinstance(name, str):
        known = ", ".join(map(repr, sorted(tools)))
        return [f"{where}: 'edited_action' names no tool of the graph: {name!r}; tools: {known}"]
    if not isinstance(arguments, Mapping):
        return [f"{where}: edited arguments must be a dict, not {type(arguments).__name__!r}"]
    same = name == item.call.name
    problems = _argument_problems(arguments, tool, item.config.arguments_schema if same else None)
    if problems:
        return [f"{where}: edited arguments for tool {name!r}: {p}" for p in problems]
    return Verdict("edited", name, dict(arguments))


def _decision(
    index: int, decision: Any, item: _Reviewed, tools: Mapping[str, Tool]
) -> Verdict | list[str]:
    call, allowed = item.call, item.config.allowed_decisions
    where = f"decision {index} (tool {call.name!r})"
    if not isinstance(decision, Mapping):
        return [f"{where}: expected a dict with a 'type', not {type(decision).__name__!r}"]
    kind = decision.get("type")
    if kind not in DECISIONS:
        expected = ", ".join(map(repr, DECISIONS))
        return [f"{where}: unknown decision type {kind!r}; expected one of {expected}"]
    if kind not in allowed:
        return [f"{where}: {kind!r} is not allowed; allowed: {', '.join(map(repr, allowed))}"]
    extra = sorted(str(k) for k in decision if k not in _KEYS[kind])
    if extra:
        keys = ", ".join(map(repr, extra))
        return [f"{where}: unexpected key(s) {keys} in the {kind!r} decision"]
    if kind == "approve":
        return Verdict("approved", call.name, dict(call.arguments))
    if kind == "edit":
        return _edit(where, decision.get("edited_action"), item, tools)
    message = decision.get("message")
    if message is None:
        message = (
            f"User rejected the tool call for `{call.name}` with id {call.id}. The tool was not "
            f"executed. Do not retry this tool call unless the user explicitly requests it."
        )
    elif not isinstance(message, str):
        return [f"{where}: 'message' must be a str, not {type(message).__name__!r}"]
    return Verdict("rejected", call.name, dict(call.arguments), message)


def _decide(
    answer: Any, items: list[_Reviewed], tools: Mapping[str, Tool]
) -> tuple[list[Verdict], list[str]]:
    """The verdicts ``answer`` gives, in order, and the problems with it."""
    if not isinstance(answer, Mapping) or list(answer) != ["decisions"]:
        shown = sorted(map(str, answer)) if isinstance(answer, Mapping) else type(answer).__name__
        return [], [f"the resume value must be {{'decisions': [...]}}, got {shown!r}"]
    decisions = answer["decisions"]
    if isinstance(decisions, (str, bytes, Mapping)) or not isinstance(decisions, Sequence):
        return [], [f"'decisions' must be a list, not {type(decisions).__name__!r}"]
    if len(decisions) != len(items):
        return [], [
            f"expected {len(items)} decision(s), one per action request in order, "
            f"got {len(decisions)}"
        ]
    verdicts: list[Verdict] = []
    problems: list[str] = []
    for index, (decision, item) in enumerate(zip(decisions, items, strict=True)):
        made = _decision(index, decision, item, tools)
        if isinstance(made, Verdict):
            verdicts.append(made)
        else:
            problems.extend(made)
    return verdicts, problems


def _frame_for(items: list[_Reviewed]) -> TaskFrame:
    frame = current_task.get_store()
    if frame is None:
        names = ", ".join(repr(i.call.name) for i in items)
        raise UsageError(
            f"tool call(s) {names} need a person's approval (HumanInTheLoopMiddleware), "
            f"which only a node can wait for: call the tool from a node"
        )
    return frame


async def review(
    tools: Mapping[str, Tool],
    middleware: Sequence[AgentMiddleware[Any]],
    runtime: Runtime[Any],
    calls: Sequence[PlannedCall],
) -> list[Verdict | None]:
    """The reviewer's verdict on each of ``calls``, ``None`` for those not reviewed.

    Pauses the node with one ``interrupt()`` about the reviewed calls; on resume
    checks the decisions and raises :class:`ResumeError` listing their problems.
    """
    found = [_reviewer(middleware, call) for call in calls]
    items = [item for item in found if item is not None]
    if not items:
        return [None] * len(calls)
    frame = _frame_for(items)
    question = await _question(items, tools, runtime)
    qid = interrupt_id(frame.task.id, frame.calls)
    asked = frame.asked
    if asked is not None and asked.id == qid:
        # The node runs again on resume: the decisions answer the calls it proposed then.
        mismatch = _same_calls(asked.value, question)
        if mismatch is not None:
            raise _refusal(frame, qid, [mismatch])
    verdicts, problems = _decide(interrupt(question), items, tools)
    if problems:
        raise _refusal(frame, qid, problems)
    if frame.run.listens("custom"):
        decided = {"interrupt_id": qid, "calls": _event_calls(items, verdicts)}
        frame.run.emit("custom", {"event": "approval", **decided})
    given = iter(verdicts)
    return [None if item is None else next(given) for item in found]


def _event_calls(items: list[_Reviewed], verdicts: list[Verdict]) -> list[dict[str, Any]]:
    return [
        {
            "name": item.call.name,
            "arguments": item.call.arguments,
            "status": verdict.status,
            "edited_action": (
                {"name": verdict.name, "arguments": verdict.arguments}
                if verdict.status == "edited"
                else None
            ),
            "message": verdict.message,
        }
        for item, verdict in zip(items, verdicts, strict=True)
    ]
