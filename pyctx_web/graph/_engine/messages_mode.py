"""The ``messages`` stream mode: ``(message, metadata)`` for the messages nodes produce.

As LangGraph does: while a node runs, the tokens of LangChain chat models it
calls stream as message chunks (a callback handler given to LangChain through
its context variable); when it returns, the messages in its update that were
not streamed as tokens follow whole. Without LangChain, the dict messages of
updates stream. The metadata names the node (``langgraph_node``), the step
(``langgraph_step``), its triggers, path and namespace, and the thread.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pyctx_web.graph._engine.records import NO_ARG

if TYPE_CHECKING:
    from pyctx_web.graph._engine.frames import Run, TaskFrame

__all__ = ["emit_messages", "metadata_of", "streaming_tokens"]

_langchain: list[bool] = []
"""Whether ``langchain_core`` is importable, found out once."""


def _has_langchain() -> bool:
    if not _langchain:
        _langchain.append(importlib.util.find_spec("langchain_core") is not None)
    return _langchain[0]


def metadata_of(run: Run, frame: TaskFrame, step: int) -> dict[str, Any]:
    """The metadata of the messages of ``frame``'s task."""
    task = frame.task
    pushed = task.arg is not NO_ARG
    namespace = f"{task.name}:{task.id}"
    return {
        "thread_id": run.thread_id,
        "langgraph_step": step,
        "langgraph_node": task.name,
        "langgraph_triggers": ("__pregel_push",) if pushed else (f"branch:to:{task.name}",),
        "langgraph_path": ("__pregel_push", 0) if pushed else ("__pregel_pull", task.name),
        "langgraph_checkpoint_ns": "|".join((*run.namespace, namespace)),
    }


def _is_message(value: Any) -> bool:
    if isinstance(value, Mapping):
        return isinstance(value.get("role"), str) and "content" in value
    module = type(value).__module__
    return module.startswith("langchain_core.messages") and hasattr(value, "content")


def _messages_in(update: Any) -> Iterator[Any]:
    values = update.values() if isinstance(update, Mapping) else [update]
    for value in values:
        items = value if isinstance(value, list | tuple) else [value]
        yield from (item for item in items if _is_message(item))


def emit_messages(run: Run, metadata: dict[str, Any], update: Any, seen: set[str]) -> None:
    """Stream the messages of a node's update that did not stream as tokens."""
    for message in _messages_in(update):
        ident = message.get("id") if isinstance(message, Mapping) else message.id
        if ident is not None and ident in seen:
            continue
        run.emit("messages", (message, metadata))


@contextmanager
def streaming_tokens(run: Run, metadata: dict[str, Any], seen: set[str]) -> Iterator[None]:
    """While the block runs, LangChain chat models stream their tokens to the run."""
    if not _has_langchain():
        yield
        return
    from langchain_core.runnables.config import var_child_runnable_config

    from pyctx_web.graph._engine.lc_tokens import TokenHandler

    outer: dict[str, Any] = dict(var_child_runnable_config.get() or {})
    given = outer.get("callbacks")
    callbacks = [*(given if isinstance(given, list) else []), TokenHandler(run, metadata, seen)]
    config: Any = {**outer, "callbacks": callbacks}
    token = var_child_runnable_config.set(config)
    try:
        yield
    finally:
        var_child_runnable_config.reset(token)
