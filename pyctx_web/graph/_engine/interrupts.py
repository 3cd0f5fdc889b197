"""``interrupt()``: ask a question from inside a node, and match answers to questions.

A node that calls ``interrupt(value)`` is paused: the question is saved on
the checkpoint and returned to the caller under ``"__interrupt__"``. When the
caller answers with ``Command(resume=...)``, the node runs again from its
first line and its ``interrupt()`` calls return the answers in the order they
were asked. Each call has a deterministic id: a hash of the task id and the
position of the call in the task.
"""

from __future__ import annotations

from typing import Any, get_origin

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentTypeError, ContextMissingError
from pyctx_web.graph._values import Interrupt
from pyctx_web.graph.errors import GraphConfigError, GraphInterrupt, mark_invalid_resume

__all__ = ["ask_again", "interrupt", "interrupt_id"]


def interrupt_id(task_id: str, index: int) -> str:
    """The id of the ``index``-th ``interrupt()`` call (from 0) of task ``task_id``."""
    # Imported here: the checkpoint records (hashlib, serde) are needed only once a graph runs.
    from pyctx_web.graph._engine.records import stable_id

    return stable_id(task_id, "interrupt", index)


def interrupt(value: Any, *, response_schema: dict[str, Any] | type | None = None) -> Any:
    """Pause the node with question ``value``; return the answer once the run is resumed.

    The first time, it raises :class:`GraphInterrupt` (a ``BaseException``:
    do not catch it). The node then runs again from its first line when the
    caller answers with ``Command(resume=answer)``, and this call returns the
    answer. ``response_schema`` describes the answer to the caller (the
    question's ``response_schema``): a JSON Schema dict, given as is; or, as in
    LangGraph, a pydantic model, ``TypedDict`` or dataclass (this needs
    pydantic), whose JSON Schema the question carries and which checks the
    answer: the call returns the checked value, or raises pydantic's
    ``ValidationError``. Raises :class:`~pyctx_web.errors.ContextMissingError`
    when called outside a node of a running graph.
    """
    if response_schema is None or isinstance(response_schema, dict):
        return _ask(value, response_schema, None)
    adapter = _adapter(response_schema)
    answer = _ask(value, adapter.json_schema(), None)
    try:
        return adapter.validate_python(answer)
    except ValueError as exc:  # pydantic's ValidationError: the run saves nothing of it
        mark_invalid_resume(exc)
        raise


def _adapter(response_schema: Any) -> Any:
    """pydantic's ``TypeAdapter`` of a ``response_schema`` type."""
    if not isinstance(response_schema, type) and get_origin(response_schema) is None:
        raise ArgumentTypeError(
            "interrupt() response_schema must be a JSON Schema dict or a type (a pydantic "
            f"model, TypedDict or dataclass), not {type(response_schema).__qualname__!r}"
        )
    try:
        from pydantic import TypeAdapter  # only for a type: pyctx_web needs no pydantic
    except ImportError as exc:
        raise ArgumentTypeError(
            "interrupt() response_schema given as a type needs pydantic to describe and check "
            "the answer; install pydantic or pass a JSON Schema dict"
        ) from exc
    return TypeAdapter(response_schema)


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
