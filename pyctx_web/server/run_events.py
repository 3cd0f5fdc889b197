"""A run of a graph as the LangGraph Server streams it: ``(event, data)`` pairs.

:func:`run_events` runs a compiled graph's ``astream`` and names its chunks as
the API's SSE events: ``metadata`` (``{run_id, attempt}``) first, then one
event per chunk of each asked mode, ``MODE|node:task_id`` for a subgraph's
chunks, and a last ``error`` event (``{error, message}``) when the graph
raises. The API's modes differ from the graph's in two places:
``messages-tuple`` is the graph's ``messages`` mode, sent as ``messages``
events ``[chunk, metadata]``, while the API's own ``messages`` mode
accumulates each message and sends ``messages/metadata`` once, then
``messages/partial`` (chunks) or ``messages/complete`` (whole messages), a
subgraph's without its namespace. A
pending interrupt reaches the client in the graph's own ``values`` chunks (the
state plus ``__interrupt__``, one per interrupt) and ``updates``, as the
LangGraph Server over LangGraph 1.x sends it. A ``debug`` checkpoint names its
checkpoints as the API does (``checkpoint``, ``parent_checkpoint``). Payloads
are JSON-ready (:func:`~pyctx_web.server.state_json.to_jsonable`), the error
too (its message withheld unless its class is one the server tells).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, Send
from pyctx_web.server.state_json import checkpoint_json, to_jsonable

__all__ = [
    "API_STREAM_MODES",
    "RunOutcome",
    "as_returned",
    "command_from_json",
    "graph_modes",
    "run_events",
]

API_STREAM_MODES: Final = frozenset(
    {
        "values",
        "updates",
        "messages",
        "messages-tuple",
        "custom",
        "debug",
        "tasks",
        "checkpoints",
    }
)
"""The ``stream_mode`` values a run accepts."""

_CHUNK_TYPES: Final = {
    "AIMessageChunk": "ai",
    "HumanMessageChunk": "human",
    "SystemMessageChunk": "system",
    "ToolMessageChunk": "tool",
    "ChatMessageChunk": "chat",
    "FunctionMessageChunk": "function",
}
"""The ``type`` of an accumulated message chunk, as the whole message it makes."""


@dataclass
class RunOutcome:
    """How a run ended, filled by :func:`run_events` when its events are exhausted."""

    status: str = "pending"
    """``running`` while it runs, then ``success`` or ``error``."""
    error: BaseException | None = None
    """What the graph raised, when it did."""
    values: Any = None
    """The last ``values`` chunk of the graph itself (its state after the last step)."""


def graph_modes(stream_modes: Iterable[str]) -> list[str]:
    """The graph's modes for the API's ``stream_modes``: ``values`` always, messages once."""
    asked = list(stream_modes)
    v2_only = sorted({"tools", "lifecycle"} & set(asked))
    if v2_only:
        raise ArgumentValueError(
            f"stream_mode entries {v2_only!r} are only supported"
            " on the v2 event streaming endpoints."
        )
    unknown = sorted(set(asked) - API_STREAM_MODES)
    if unknown:
        known = ", ".join(sorted(API_STREAM_MODES))
        raise ArgumentValueError(f"unknown stream_mode {unknown[0]!r}; expected one of {known}")
    modes = {"messages" if m == "messages-tuple" else m for m in asked} | {"values"}
    return sorted(modes)


def command_from_json(data: Mapping[str, Any]) -> Command[Any]:
    """The API's ``command`` object (``resume``, ``update``, ``goto``) as a graph ``Command``."""
    unknown = sorted(set(data) - {"resume", "update", "goto"})
    if unknown:
        raise ArgumentValueError(
            f"unknown command field {unknown[0]!r}; expected resume, update, goto"
        )
    goto = data.get("goto")
    targets = goto if isinstance(goto, list) else ([] if goto is None else [goto])
    sends: list[str | Send] = [_goto_target(t) for t in targets]
    update = data.get("update")
    if isinstance(update, list):  # [[key, value], ...] pairs, as the SDK may send them
        update = {str(k): v for k, v in update}
    kwargs: dict[str, Any] = {"update": update}
    if "resume" in data:
        kwargs["resume"] = data["resume"]
    if sends:
        kwargs["goto"] = sends if isinstance(goto, list) else sends[0]
    return Command(**kwargs)


def _goto_target(target: Any) -> str | Send:
    if isinstance(target, str):
        return target
    if isinstance(target, Mapping) and isinstance(target.get("node"), str):
        return Send(target["node"], target.get("input"))
    raise ArgumentValueError(f"a command's goto is a node name or {{node, input}}, not {target!r}")


@dataclass
class _Messages:
    """The legacy ``messages`` mode's accumulated messages, by id."""

    seen: dict[str, Any] = field(default_factory=dict)

    def events(self, message: Any, metadata: Any) -> list[tuple[str, Any]]:
        """``messages/metadata`` for a new id, then ``partial`` or ``complete`` of the whole."""
        data = to_jsonable(message)
        if not isinstance(data, dict):
            return []
        is_chunk = str(data.get("type", "")).endswith("Chunk") or "chunk" in str(
            data.get("role", "")
        )
        key = str(data.get("id"))
        out: list[tuple[str, Any]] = []
        previous = self.seen.get(key)
        if previous is None:
            out.append(("messages/metadata", {key: {"metadata": to_jsonable(metadata)}}))
            whole = dict(data)
        else:
            whole = _joined(previous, data)
        self.seen[key] = whole
        shown = _as_message(whole)
        out.append(("messages/partial" if is_chunk else "messages/complete", [shown]))
        return out


def _as_message(whole: dict[str, Any]) -> dict[str, Any]:
    """Accumulated chunks as the whole message they make: its type, without chunk fields."""
    kind = whole.get("type")
    if kind not in _CHUNK_TYPES:
        return whole
    shown = {k: v for k, v in whole.items() if k not in ("tool_call_chunks", "chunk_position")}
    return dict(shown, type=_CHUNK_TYPES[kind])


def _named_checkpoints(payload: Any) -> Any:
    """A debug checkpoint's payload, its checkpoints named as the API names them."""
    if not isinstance(payload, Mapping):
        return payload
    tasks = []
    for task in payload.get("tasks") or ():
        state = task.get("state") if isinstance(task, Mapping) else None
        if isinstance(state, Mapping) and state.get("configurable"):
            task = {k: v for k, v in task.items() if k != "state"}
            task["checkpoint"] = state["configurable"]
        tasks.append(task)
    return {
        **payload,
        "checkpoint": checkpoint_json(payload.get("config")),
        "parent_checkpoint": checkpoint_json(payload.get("parent_config")),
        "tasks": tasks,
    }


def _joined(previous: dict[str, Any], chunk: dict[str, Any]) -> dict[str, Any]:
    """A message chunk added to the chunks before it: text concatenated, lists extended."""
    whole = dict(previous)
    for key, value in chunk.items():
        before = whole.get(key)
        texts = isinstance(before, str) and isinstance(value, str) and key == "content"
        if texts or (isinstance(before, list) and isinstance(value, list)):
            whole[key] = before + value
        elif value not in (None, "", [], {}):
            whole[key] = value
    return whole


async def run_events(
    graph: CompiledStateGraph,
    input: Any,
    config: Mapping[str, Any],
    *,
    run_id: str,
    stream_modes: Iterable[str] = ("values",),
    subgraphs: bool = False,
    attempt: int = 1,
    outcome: RunOutcome | None = None,
    options: Mapping[str, Any] | None = None,
) -> AsyncGenerator[tuple[str, Any], None]:
    """The run's events: ``metadata``, the asked modes' chunks, ``error`` if the graph raises.

    ``input`` is the run's input or a ``Command``; ``options`` are the graph's
    run keywords (``context``, ``interrupt_before``, ``durability``...).
    ``outcome``, when given, is filled as the run goes. Cancelling the caller's
    task (or closing this generator) cancels the run; that is not an ``error``.
    """
    asked = list(stream_modes)
    modes = graph_modes(asked)
    outcome = RunOutcome() if outcome is None else outcome
    outcome.status = "running"
    yield "metadata", {"run_id": run_id, "attempt": attempt}
    messages = _Messages()
    try:
        async for namespace, mode, chunk in _chunks(
            graph, input, config, modes, subgraphs, options
        ):
            for name, data in _events_of(asked, mode, chunk, namespace, outcome, messages):
                yield name, data
    except Exception as error:  # the graph's own failure: the stream's last event names it
        outcome.status, outcome.error = "error", error
        yield "error", to_jsonable(error)
        return
    outcome.status = "success"


async def _chunks(
    graph: CompiledStateGraph,
    input: Any,
    config: Mapping[str, Any],
    modes: list[str],
    subgraphs: bool,
    options: Mapping[str, Any] | None,
) -> AsyncGenerator[tuple[tuple[str, ...], str, Any], None]:
    """The graph's chunks as ``(namespace, mode, chunk)``, ``()`` for the graph itself."""
    stream = graph.astream(input, config, stream_mode=modes, subgraphs=subgraphs, **(options or {}))
    async for item in stream:
        if subgraphs:
            yield item[0], item[1], item[2]
        else:
            yield (), item[0], item[1]


def _events_of(
    asked: list[str],
    mode: str,
    chunk: Any,
    namespace: tuple[str, ...],
    outcome: RunOutcome,
    messages: _Messages,
) -> list[tuple[str, Any]]:
    """The API events for one graph chunk (none for a mode only run for the server's sake)."""
    suffix = "".join(f"|{part}" for part in namespace)
    if mode == "values" and not namespace:
        outcome.values = chunk
    if mode == "debug" and isinstance(chunk, Mapping) and chunk.get("type") == "checkpoint":
        chunk = {**chunk, "payload": _named_checkpoints(chunk.get("payload"))}
    if mode == "messages":
        message, metadata = chunk
        if "messages-tuple" in asked:
            return [("messages" + suffix, [to_jsonable(message), to_jsonable(metadata)])]
        # As the server's: the legacy events of a subgraph's messages name no namespace.
        return messages.events(message, metadata)
    if mode not in asked:
        return []
    return [(mode + suffix, as_returned(chunk) if mode == "updates" else to_jsonable(chunk))]


def as_returned(value: Any) -> Any:
    """What nodes returned as JSON, their dict messages as they were (not LangChain's shape).

    The server sends a node's update as the node wrote it; only the state holds
    messages its reducer has made into LangChain messages.
    """
    if isinstance(value, dict):
        return {_key(k): as_returned(v) for k, v in value.items()}
    if isinstance(value, list) or type(value) is tuple:
        return [as_returned(item) for item in value]
    return to_jsonable(value)


def _key(key: Any) -> str:
    """A dict key as JSON writes it: a str as itself, a number, bool or None as its JSON text."""
    if isinstance(key, str):
        return str(to_jsonable(key))
    if key is None or isinstance(key, bool | int | float):
        return json.dumps(key)
    return str(to_jsonable(key))
