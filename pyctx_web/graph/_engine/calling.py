"""How the engine calls a node: the state it gets, what else it asked for, its messages."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Any

from pyctx_web.context import is_awaitable
from pyctx_web.graph._engine.injection import injected
from pyctx_web.graph._engine.messages_mode import (
    emit_messages,
    metadata_of,
    seen_messages,
    streaming_tokens,
)
from pyctx_web.graph._engine.records import TaskResult
from pyctx_web.graph._engine.sync_form import hides_loop, without_loop
from pyctx_web.graph._values import UNSET, Command
from pyctx_web.graph.errors import GraphError, InvalidUpdateError, ParentCommand

if TYPE_CHECKING:
    from pyctx_web.graph._engine.channels import StateSchema
    from pyctx_web.graph._engine.frames import Run, TaskFrame
    from pyctx_web.graph._engine.planner import Planner
    from pyctx_web.graph._engine.spec import NodeSpec

__all__ = ["NodeCalls", "node_error"]


def node_error(node: str, caught: BaseException) -> Exception:
    """What a node raised, as its error; a cancel of the run itself is re-raised.

    A ``CancelledError`` that nobody asked of the run (the node awaited a future
    that someone else cancelled) is the node's error like any other.
    """
    if isinstance(caught, Exception):
        return caught
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise caught
    error = GraphError(f"node {node!r} failed: something it awaited was cancelled")
    error.__cause__ = caught
    return error


class NodeCalls:
    """How one run calls its nodes: what each gets, and what its return value updates."""

    __slots__ = ("direct", "loopless", "planner", "run", "schema", "trace_parent", "traced")

    def __init__(self, run: Run, schema: StateSchema, planner: Planner) -> None:
        self.run = run
        self.schema = schema
        self.planner = planner
        self.traced = bool(run.config.get("callbacks")) or _in_traced_node()
        """The run's config has LangChain callbacks, or the run is in a node traced by them:
        the run and each node call are chain runs of theirs."""
        self.trace_parent: Any = None
        """The callbacks of the graph's own chain run, which node runs start under."""
        self.loopless = hides_loop()
        """A sync form runs on CPython: node functions are called with the run's loop hidden,
        as LangGraph's ``invoke`` runs no loop (a blocking call in a sync node blocks no loop)."""
        self.direct = not (self.traced or self.loopless)
        """Whether a node that asks for nothing besides its state is called as ``fn(state)``."""

    def state_of(self, node: NodeSpec, values: dict[str, Any]) -> Any:
        """The state ``node`` receives: the graph's, or only the keys its annotation names."""
        if node.reads is None:
            return self.schema.to_state(values, node.name)
        keys = node.reads.annotations
        return node.reads.to_state({k: v for k, v in values.items() if k in keys}, node.name)

    async def streaming(self, node: NodeSpec, arg: Any, frame: TaskFrame) -> Any:
        """Call the node with its messages streamed (``stream_mode="messages"``)."""
        metadata = metadata_of(frame)
        seen = seen_messages(self.run, arg)
        with streaming_tokens(self.run, metadata, seen):
            ret = self.call(node, arg, frame)
            if is_awaitable(ret):
                ret = await ret
        for part in _parts(ret):
            emit_messages(
                self.run, metadata, part.update if isinstance(part, Command) else part, seen
            )
        return ret

    def call(self, node: NodeSpec, arg: Any, frame: TaskFrame) -> Any:
        """Call the node with what it asked for besides its state (a chain run when traced)."""
        if self.traced:
            from pyctx_web.graph._engine.lc_trace import traced_call

            call = lambda: self._call(node, arg, frame)  # noqa: E731  # a thunk
            return traced_call(self.run, node, arg, call, self.trace_parent)
        return self._call(node, arg, frame)

    def _call(self, node: NodeSpec, arg: Any, frame: TaskFrame) -> Any:
        if self.loopless:
            asked = injected(self.run, frame, node.inject) if node.inject else {}
            return without_loop(node.fn, arg, **asked)
        if node.inject:
            return node.fn(arg, **injected(self.run, frame, node.inject))
        return node.fn(arg)

    def to_result(self, node: str, ret: Any) -> tuple[TaskResult, Any]:
        """What ``node``'s return value writes (and where it goes), and its update as streamed.

        As in LangGraph, a node may return a list of :class:`Command` objects, or
        a list mixing them with dicts of updates: their writes apply in order and
        their ``goto`` targets all run next.
        """
        if isinstance(ret, Command) or _has_command(ret):
            parts = _parts(ret)
            for part in parts:
                if isinstance(part, Command) and part.graph is not None:
                    _to_parent(node, part)
            updates: list[tuple[str, Any]] = []
            goto: list[Any] = []
            for part in parts:
                if not isinstance(part, Command):
                    updates += self.schema.check_update(node, part)
                    continue
                if part.resume is not UNSET:
                    raise InvalidUpdateError(
                        f"node {node!r} returned Command(resume=...); resume answers a paused "
                        f"run and is passed to ainvoke(), not returned by a node",
                        node=node,
                    )
                updates += self.schema.check_update(node, part.update)
                goto += self.planner.goto_list(node, part.goto)
            return TaskResult(updates, goto), _streamed(updates)
        updates = self.schema.check_update(node, ret)
        return TaskResult(updates), None if ret is None else dict(updates)


def _in_traced_node() -> bool:
    """Whether this run starts in a node whose call is a LangChain chain run (a subgraph)."""
    if "pyctx_web.graph._engine.lc_trace" not in sys.modules:
        return False  # no run of this process was traced: LangChain need not be imported
    from pyctx_web.graph._engine.lc_trace import node_callbacks

    return node_callbacks() is not None


def _to_parent(node: str, command: Command[Any]) -> None:
    """Raise :class:`ParentCommand` for a ``Command(graph=Command.PARENT)``: the subgraph ends
    and the parent's node that runs it returns the command."""
    if command.graph != Command.PARENT:
        raise InvalidUpdateError(
            f"node {node!r} returned Command(graph={command.graph!r}); graph must be None "
            f"(this graph) or Command.PARENT",
            node=node,
        )
    raise ParentCommand(command)


def _has_command(ret: Any) -> bool:
    return isinstance(ret, list | tuple) and any(isinstance(item, Command) for item in ret)


def _parts(ret: Any) -> list[Any]:
    """The parts of a node's return value: the items of a list holding Commands, else itself."""
    return list(ret) if _has_command(ret) else [ret]


def _streamed(updates: list[tuple[str, Any]]) -> Any:
    """The ``updates`` stream's view of a task's writes: a dict, or one dict per write when a
    key was written twice (as LangGraph shows them)."""
    if not updates:
        return None
    if len({key for key, _ in updates}) == len(updates):
        return dict(updates)
    return [{key: value} for key, value in updates]
