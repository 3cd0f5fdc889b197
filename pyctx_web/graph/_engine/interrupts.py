"""``interrupt()``: ask a question from inside a node, and match answers to questions.

A node that calls ``interrupt(value)`` is paused: the question is saved on
the checkpoint and returned to the caller under ``"__interrupt__"``. When the
caller answers with ``Command(resume=...)``, the node runs again from its
first line and its ``interrupt()`` calls return the answers in the order they
were asked. Each call has a deterministic id: a hash of the task id and the
position of the call in the task.
"""

from __future__ import annotations

from typing import Any

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentTypeError, ContextMissingError
from pyctx_web.graph._values import Interrupt
from pyctx_web.graph.errors import GraphConfigError, GraphInterrupt

__all__ = ["ask_again", "interrupt", "interrupt_id"]


def interrupt_id(task_id: str, index: int) -> str:
    """The id of the ``index``-th ``interrupt()`` call (from 0) of task ``task_id``."""
    # Imported here: the checkpoint records (hashlib, serde) are needed only once a graph runs.
    from pyctx_web.graph._engine.records import stable_id

    return stable_id(task_id, "interrupt", index)


def interrupt(value: Any, *, response_schema: dict[str, Any] | None = None) -> Any:
    """Pause the node with question ``value``; return the answer once the run is resumed.

    The first time, it raises :class:`GraphInterrupt` (a ``BaseException``:
    do not catch it). The node then runs again from its first line when the
    caller answers with ``Command(resume=answer)``, and this call returns the
    answer. Raises :class:`~pyctx_web.errors.ContextMissingError` when called
    outside a node of a running graph.
    """
    if response_schema is not None and not isinstance(response_schema, dict):
        raise ArgumentTypeError(
            "interrupt() response_schema must be a JSON Schema dict, "
            f"not {type(response_schema).__qualname__!r}"
        )
    return _ask(value, response_schema, None)


def ask_again(question: Interrupt) -> Any:
    """Ask ``question`` (a subgraph's) in the calling node, keeping its id; as :func:`interrupt`."""
    return _ask(question.value, question.response_schema, question.id)


def _ask(value: Any, response_schema: dict[str, Any] | None, given_id: str | None) -> Any:
    # Imported here: importing graph.types (as the chat protocol does) needs no run machinery.
    from pyctx_web.graph._engine.frames import current_run, current_task

    frame = current_task.get_store()
    if frame is None:
        if current_run.get_store() is None:
            raise ContextMissingError(
                "interrupt() was called outside a graph run; "
                "call it from a node while the graph runs",
                operation="interrupt()",
                source="graph run",
            )
        raise ContextMissingError(
            "interrupt() was called outside a node of the graph run (in a router?); "
            "only nodes can be paused",
            operation="interrupt()",
            source="graph node",
        )
    index = frame.calls
    frame.calls += 1
    if index < len(frame.answers):
        return frame.answers[index]
    if frame.run.checkpointer is None:
        raise GraphConfigError(
            "interrupt() needs a checkpointer to save the paused run: "
            "compile(checkpointer=InMemorySaver()) and pass a thread_id"
        )
    frame.raised_index = index
    question = Interrupt(value, given_id or interrupt_id(frame.task.id, index), response_schema)
    raise GraphInterrupt((question,))


publish("pyctx_web.graph.types", interrupt)
