"""The transformers that follow subgraphs' runs from the ``tasks`` events of their parents.

A subgraph's run starts where the first task of its namespace starts
(``node:task_id``, the parent's task running it) and ends with that parent
task's result: ``completed``, ``failed`` (its error) or ``interrupted``.
:class:`LifecycleTransformer` tells this as ``lifecycle`` events for every depth
below its scope; :class:`SubgraphTransformer` gives a handle per direct child
on ``run.subgraphs`` (:mod:`pyctx_web.graph.stream._subgraphs`). A namespace's
``lc_agent_name`` (the metadata LangChain's named agents run with) names it,
and the tool call whose task ran it is its ``cause``. ``tasks`` events are kept
out of the main log.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from pyctx_web._homes import publish
from pyctx_web.graph.errors import GraphInterrupt
from pyctx_web.graph.stream._types import ProtocolEvent, StreamTransformer
from pyctx_web.graph.stream.stream_channel import StreamChannel

__all__ = [
    "LifecyclePayload",
    "LifecycleTransformer",
    "SubgraphStatus",
    "_TasksLifecycleBase",
]

SubgraphStatus = Literal["started", "completed", "failed", "interrupted", "drained"]
"""Where a subgraph's run stands."""

_Transition = tuple[tuple[str, ...], SubgraphStatus, str | None]


class LifecyclePayload(TypedDict, total=False):
    """A ``lifecycle`` event: the subgraph's namespace, its status and what it was."""

    event: SubgraphStatus
    namespace: list[str]
    graph_name: NotRequired[str]
    trigger_call_id: NotRequired[str]
    cause: NotRequired[dict[str, Any]]
    error: NotRequired[str]


def _parse_ns_segment(segment: str) -> tuple[str, str | None]:
    """``("node", "task_id")`` of a namespace segment ``"node:task_id"``."""
    name, colon, task_id = segment.partition(":")
    return name, task_id if colon else None


def _status_from_exception(err: BaseException) -> tuple[SubgraphStatus, str | None]:
    if isinstance(err, GraphInterrupt):
        return "interrupted", None
    return "failed", str(err)


def _terminal_from_result(payload: dict[str, Any]) -> tuple[SubgraphStatus, str | None]:
    if payload.get("interrupts"):
        return "interrupted", None
    error = payload.get("error")
    return ("failed", str(error)) if error else ("completed", None)


def _tool_call_id_of(task_input: Any) -> str | None:
    """The id of the tool call a task runs (a tool call with context, or a list of calls)."""
    if isinstance(task_input, dict) and isinstance(task_input.get("tool_call"), dict):
        found = task_input["tool_call"].get("id")
        return found if isinstance(found, str) else None
    if isinstance(task_input, list):
        for call in task_input:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                return str(call["id"])
    return None


class _TasksLifecycleBase(StreamTransformer):
    """Finds subgraphs' runs from ``tasks`` events; subclasses say what to do with them.

    ``_should_track(ns)`` picks the namespaces; ``_on_started(ns, graph_name,
    trigger_call_id)`` (the cause in ``self._pending_cause``) and
    ``_on_terminal(ns, status, error)`` act on them.
    """

    required_stream_modes = ("tasks",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._seen: set[tuple[str, ...]] = set()
        self._open: dict[tuple[str, ...], str] = {}
        self._lc_by_ns: dict[tuple[str, ...], str | None] = {}
        self._pending_tool_calls: dict[str, str] = {}
        self._pending_cause: dict[str, Any] | None = None

    def _should_track(self, ns: tuple[str, ...]) -> bool:
        raise NotImplementedError

    def _on_started(
        self, ns: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None
    ) -> None:
        raise NotImplementedError

    def _on_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        raise NotImplementedError

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] != "tasks":
            return True
        ns = tuple(event["params"]["namespace"])
        data = event["params"]["data"]
        if "result" in data:
            for child, status, error in self._pop_terminal_transitions(ns, data):
                self._on_terminal(child, status, error)
        else:
            self._record_identity(ns, data)
            self._record_pending_tool_calls(data)
            self._handle_task_start(ns, data)
        return False

    def _record_identity(self, ns: tuple[str, ...], data: dict[str, Any]) -> None:
        """Keep the ``lc_agent_name`` of ``ns``'s first task."""
        if ns not in self._lc_by_ns:
            self._lc_by_ns[ns] = (data.get("metadata") or {}).get("lc_agent_name")

    def _record_pending_tool_calls(self, data: dict[str, Any]) -> None:
        """Keep which tool call a task runs, by task id (its subgraph's cause)."""
        task_id = data.get("id")
        call_id = _tool_call_id_of(data.get("input"))
        if isinstance(task_id, str) and call_id is not None:
            self._pending_tool_calls[task_id] = call_id

    def _handle_task_start(self, ns: tuple[str, ...], data: dict[str, Any]) -> None:
        if not self._should_track(ns) or ns in self._seen:
            return
        self._seen.add(ns)
        node, trigger = _parse_ns_segment(ns[-1])
        agent = (data.get("metadata") or {}).get("lc_agent_name")
        cause: dict[str, Any] | None = None
        if agent is not None and trigger is not None:
            call_id = self._pending_tool_calls.get(trigger)
            if call_id:
                cause = {"type": "toolCall", "tool_call_id": str(call_id)}
        self._pending_cause = cause
        self._on_started(ns, agent if agent is not None else (node or None), trigger)
        if trigger is not None:
            self._open[ns] = trigger

    def _pop_terminal_transitions(
        self, ns: tuple[str, ...], data: dict[str, Any]
    ) -> list[_Transition]:
        """The tracked children that the task result ``data`` (at ``ns``) ends."""
        result_id = data.get("id")
        if not result_id:
            return []
        ended: list[_Transition] = []
        for child, task_id in list(self._open.items()):
            if child[:-1] == ns and task_id == result_id:
                status, error = _terminal_from_result(data)
                ended.append((child, status, error))
                del self._open[child]
        return ended

    def finalize(self) -> None:
        for ns in list(self._open):
            self._on_terminal(ns, "completed", None)
        self._open.clear()

    def fail(self, err: BaseException) -> None:
        status, error = _status_from_exception(err)
        for ns in list(self._open):
            self._on_terminal(ns, status, error)
        self._open.clear()


class LifecycleTransformer(_TasksLifecycleBase):
    """``run.lifecycle`` (and ``lifecycle`` events): subgraphs' runs starting and ending."""

    _native = True

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._channel: StreamChannel[LifecyclePayload] = StreamChannel("lifecycle")

    def init(self) -> dict[str, Any]:
        return {"lifecycle": self._channel}

    def _should_track(self, ns: tuple[str, ...]) -> bool:
        return len(ns) > len(self.scope) and ns[: len(self.scope)] == self.scope

    def _on_started(
        self, ns: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None
    ) -> None:
        if trigger_call_id is None:  # no parent task to end it: finalize() does
            return
        payload: LifecyclePayload = {"event": "started", "namespace": list(ns)}
        if graph_name:
            payload["graph_name"] = graph_name
        payload["trigger_call_id"] = trigger_call_id
        if self._pending_cause is not None:
            payload["cause"] = self._pending_cause
        self._channel.push(payload)

    def _on_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        payload: LifecyclePayload = {"event": status, "namespace": list(ns)}
        if error is not None:
            payload["error"] = error
        self._channel.push(payload)


publish("pyctx_web.graph.stream.transformers", LifecyclePayload, LifecycleTransformer)
