"""Subgraphs: a compiled graph run inside a node of another graph's run.

A compiled graph added as a node, or invoked or streamed from inside a node,
runs as a subgraph of that node's task, as in LangGraph: in the namespace
``"node:task_id"``, with the parent's checkpointer when it has none of its own,
and with its questions asked through the parent, which pauses (a stream's once
its chunks are out). When the
parent's task runs again (after ``Command(resume=...)``), the subgraph resumes
from its own checkpoint, so only what had not finished runs again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from pyctx_web._records import record
from pyctx_web.graph._engine.frames import TaskFrame, current_task
from pyctx_web.graph._engine.interrupts import ask_again
from pyctx_web.graph._engine.options import NAMESPACE_SEPARATOR, RunOptions, child_thread
from pyctx_web.graph._values import Command, Interrupt, StateSnapshot
from pyctx_web.graph.errors import ParentCommand

if TYPE_CHECKING:
    from pyctx_web.graph._engine.loop import Engine
    from pyctx_web.graph._engine.spec import GraphSpec
    from pyctx_web.graph.checkpoint.base import Checkpointer


class ChildGraph(Protocol):
    """What of a compiled graph running it as a subgraph needs."""

    name: str
    spec: GraphSpec
    checkpointer: Checkpointer | None

    def engine_for(self, place: ChildPlace) -> Engine:
        """An engine on the subgraph's checkpoints at ``place``."""

    async def run_child(
        self, input: Any, options: RunOptions, place: ChildPlace
    ) -> tuple[dict[str, Any], list[Interrupt]]:
        """Run at ``place``; the result's values and the questions it paused on."""

    async def state_at(
        self, engine: Engine, thread_id: str, checkpoint_id: str | None
    ) -> StateSnapshot:
        """The snapshot of ``thread_id`` at ``checkpoint_id``."""

    async def with_subgraphs(self, state: StateSnapshot, engine: Engine) -> StateSnapshot:
        """``state`` with its pending subgraphs' states."""

    async def ainvoke(self, input: Any, config: Any = None) -> Any:
        """Run the graph."""


__all__ = ["ChildGraph", "ChildPlace", "Subgraphs", "subgraph_node", "with_child_configs"]


@record(frozen=True, slots=True)
class ChildPlace:
    """Where a subgraph's run stands: its parent's task, namespace, checkpointer and thread."""

    parent: TaskFrame | None
    """The task of the parent's run that runs the subgraph (``None`` when only read)."""
    namespace: tuple[str, ...]
    """``("node:task_id", ...)``, from the outermost graph in."""
    checkpointer: Checkpointer | None
    """The subgraph's own checkpointer, or its parent's."""
    thread_id: str | None
    """The key its checkpoints are stored under; ``None`` without a checkpointer."""

    @property
    def checkpoint_ns(self) -> str:
        """The namespace as LangGraph's configs spell it."""
        return "|".join(self.namespace)


class Subgraphs:
    """How a compiled graph runs as a subgraph, and reads the states of its own subgraphs."""

    __slots__ = ("_graph",)

    def __init__(self, graph: ChildGraph) -> None:
        self._graph = graph

    def _place(self, parent: TaskFrame) -> ChildPlace:
        namespace = (*parent.run.namespace, f"{parent.task.name}:{parent.task.id}")
        checkpointer = self._graph.checkpointer or parent.run.checkpointer
        # The parent's key holds its own namespace: the subgraph's key starts from the thread.
        thread = parent.run.thread_id
        if thread is not None:
            thread = thread.split(NAMESPACE_SEPARATOR, 1)[0]
        key = child_thread(thread, namespace) if thread is not None and checkpointer else None
        return ChildPlace(parent, namespace, checkpointer, key)

    async def with_subgraphs(self, state: StateSnapshot, engine: Engine) -> StateSnapshot:
        """``state`` with the state of each pending task's subgraph in the task's ``state``."""
        nodes = self._graph.spec.nodes
        thread = state.config["configurable"].get("thread_id")
        key = engine.run.thread_id
        if engine.checkpoints.checkpointer is None or thread is None or key is None:
            return state
        tasks = []
        for task in state.tasks:
            child = getattr(nodes[task.name].fn, "subgraph", None) if task.name in nodes else None
            if child is not None:
                namespace = (*_namespace_of(key), f"{task.name}:{task.id}")
                checkpointer = child.checkpointer or engine.checkpoints.checkpointer
                place = ChildPlace(None, namespace, checkpointer, child_thread(thread, namespace))
                task = dataclasses.replace(task, state=await _nested(child, place))
            tasks.append(task)
        return dataclasses.replace(state, tasks=tuple(tasks))

    async def _waiting(self, place: ChildPlace) -> list[Interrupt]:
        """The questions the subgraph's latest checkpoint waits on, if it paused."""
        if place.thread_id is None:
            return []
        loaded = await self._graph.engine_for(place).checkpoints.load(place.thread_id, None)
        if loaded is None:
            return []
        cp, pending = loaded
        waiting: list[Interrupt] = pending.waiting(cp.tasks)
        return waiting

    async def streamed_here(
        self, input: Any, options: RunOptions
    ) -> tuple[ChildPlace | None, Any, RunOptions]:
        """Where a stream of the graph started here runs, with what input and options.

        In a node of a running graph (``agent.stream(...)`` in a node or a tool), as
        a subgraph of the node's task, as in LangGraph: a subgraph that paused is
        resumed with the parent's answer. Elsewhere ``(None, input, options)``.
        """
        parent = current_task.get_store()
        if parent is None:
            return None, input, options
        place = self._place(parent)
        waiting = await self._waiting(place)
        if waiting:
            input = Command(resume={waiting[0].id: ask_again(waiting[0])})
        return place, input, _with_context(options, parent)

    async def ask_parent(self, place: ChildPlace | None) -> None:
        """After a stream at ``place`` ended: the question it paused on pauses the parent.

        As LangGraph's subgraph stream raises the interrupt once its chunks are out.
        """
        waiting = await self._waiting(place) if place is not None else []
        if waiting:
            ask_again(waiting[0])

    async def run_as_child(
        self, input: Any, options: RunOptions, parent: TaskFrame
    ) -> dict[str, Any]:
        """Run as a subgraph of ``parent``'s task; questions pause the parent, answers resume."""
        options = _with_context(options, parent)
        place = self._place(parent)
        waiting = await self._waiting(place)
        if waiting:
            # The parent's task runs again after an answer: the subgraph resumes.
            input = Command(resume={waiting[0].id: ask_again(waiting[0])})
        while True:
            values, questions = await self._graph.run_child(input, options, place)
            if not questions:
                return values
            input = Command(resume={questions[0].id: ask_again(questions[0])})


def _with_context(options: RunOptions, parent: TaskFrame) -> RunOptions:
    """As in LangGraph, a subgraph runs with its parent's context unless given one."""
    if options.get("context") is None:
        return {**options, "context": parent.run.context}
    return options


async def _nested(graph: ChildGraph, place: ChildPlace) -> StateSnapshot:
    engine = graph.engine_for(place)
    assert place.thread_id is not None
    state = await graph.state_at(engine, place.thread_id, None)
    return await graph.with_subgraphs(state, engine)


def subgraph_node(graph: ChildGraph, keys: Callable[[], frozenset[str]]) -> Any:
    """A node that runs ``graph`` on the parent's state and returns its result as the update.

    ``keys()`` gives the parent's state keys: the update keeps only those.
    """
    inputs = frozenset(graph.spec.schema.annotations)

    async def run_subgraph(state: Mapping[str, Any]) -> dict[str, Any] | Command[Any]:
        given = {k: v for k, v in dict(state).items() if k in inputs}
        try:
            result = await graph.ainvoke(given)
        except ParentCommand as sent:
            # Command(graph=PARENT) from the subgraph: this node returns it, to this graph.
            return dataclasses.replace(sent.command, graph=None)
        known = keys()
        return {k: v for k, v in result.items() if k in known}

    run_subgraph.__name__ = graph.name
    run_subgraph.subgraph = graph  # type: ignore[attr-defined]
    return run_subgraph


def with_child_configs(nodes: Mapping[str, Any], state: StateSnapshot) -> StateSnapshot:
    """``state`` with, as each subgraph node's task ``state``, the config naming the
    subgraph's place in the thread (``checkpoint_ns`` ``"node:task_id"``), as LangGraph's
    ``get_state`` gives it without ``subgraphs=True``."""
    conf = state.config["configurable"]
    outer = conf.get("checkpoint_ns") or ""
    tasks = list(state.tasks)
    changed = False
    for index, task in enumerate(tasks):
        node = nodes.get(task.name)
        if task.state is None and getattr(getattr(node, "fn", None), "subgraph", None):
            own = f"{task.name}:{task.id}"
            namespace = f"{outer}|{own}" if outer else own
            place = {"configurable": {"thread_id": conf["thread_id"], "checkpoint_ns": namespace}}
            tasks[index] = dataclasses.replace(task, state=place)
            changed = True
    return dataclasses.replace(state, tasks=tuple(tasks)) if changed else state


def _namespace_of(key: str) -> tuple[str, ...]:
    """The namespace in a subgraph's storage key (``()`` for a top-level thread)."""
    return tuple(key.split(NAMESPACE_SEPARATOR)[1:])
