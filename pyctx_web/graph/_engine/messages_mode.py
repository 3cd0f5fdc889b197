"""The ``messages`` stream mode: ``(message, metadata)`` for the messages nodes produce.

As LangGraph does: while a node runs, the tokens of LangChain chat models it
calls stream as message chunks (a callback handler given to LangChain through
its context variable); when it returns, the messages in its update that the
stream has not carried yet follow whole. A stream carries a message once: the
ids it has carried, tokens included, and those of the messages each node was
given are kept per stream (a subgraph streaming into its parent's stream with
``subgraphs=True`` shares its parent's). Only LangChain's message objects
stream, as in LangGraph: a plain dict a node returns does not (``add_messages``
makes it a message in the state); without LangChain, the dict messages of
updates stream, being the only messages there are. The metadata is the task's
config's (:mod:`.task_config`): the run's ``config["metadata"]``, the thread when
there is one, the node (``langgraph_node``), the step (``langgraph_step``), its
triggers, path and namespace. A ``@task`` call in a
node is a task of its own there: its models' tokens, and the messages it
returns, carry its name, its path under the caller's and its namespace.
"""

from __future__ import annotations

import importlib.util
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final

from pyctx_web.graph._engine.task_config import task_config

if TYPE_CHECKING:
    from pyctx_web.graph._engine.frames import Run, TaskFrame

__all__ = [
    "LC_MODES",
    "emit_messages",
    "has_langchain",
    "metadata_of",
    "seen_messages",
    "streaming_call",
    "streaming_tokens",
]

LC_MODES: Final = frozenset({"messages", "tools"})
"""The stream modes fed while a node runs, by LangChain's callbacks (its models and tools)."""

_langchain: list[bool] = []
"""Whether ``langchain_core`` is importable, found out once."""


def has_langchain() -> bool:
    """Whether ``langchain_core`` is importable (found out once)."""
    if not _langchain:
        _langchain.append(importlib.util.find_spec("langchain_core") is not None)
    return _langchain[0]


_streaming: ContextVar[dict[str, Any] | None] = ContextVar(
    "pyctx_web.graph.streaming", default=None
)
"""The metadata of the node or ``@task`` call whose messages stream, while it runs."""


def metadata_of(frame: TaskFrame) -> dict[str, Any]:
    """The metadata of the messages of ``frame``'s task: its config's (as LangGraph's)."""
    # A graph's run from a node starts from its caller's metadata.
    caller = _streaming.get()
    own = task_config(frame)["metadata"]
    metadata: dict[str, Any] = {**caller, **own} if caller else dict(own)
    metadata["ls_integration"] = "langgraph"
    return metadata


def _is_message(value: Any) -> bool:
    """Whether ``value`` is a message as the stream carries it.

    With LangChain, as in LangGraph: its message objects only. A dict a node
    returns is a message only once ``add_messages`` has made it one, so it does
    not stream. Without LangChain, dicts are the messages state holds.
    """
    if has_langchain():
        from langchain_core.messages import BaseMessage

        return isinstance(value, BaseMessage)
    return isinstance(value, Mapping) and isinstance(value.get("role"), str) and "content" in value


def _messages_in(values: Any) -> Iterator[Any]:
    """The messages of a node's update or state: the values, and the items of list values."""
    if _is_message(values):
        yield values
        return
    if isinstance(values, Mapping):
        fields: Any = values.values()
    elif isinstance(values, list | tuple):
        fields = [values]
    else:  # a dataclass or Pydantic state
        fields = getattr(values, "__dict__", {}).values()
    for value in fields:
        items = value if isinstance(value, list | tuple) else [value]
        yield from (item for item in items if _is_message(item))


def _id_of(message: Any) -> Any:
    return message.get("id") if isinstance(message, Mapping) else message.id


_seen_by_stream: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
"""The ids of the messages each stream (its queue) has carried or given to a node."""


def seen_messages(run: Run, given: Any) -> set[str]:
    """The message ids ``run``'s stream has carried, with those of ``given`` (a node's input)."""
    queue = run.queue
    seen = _seen_by_stream.get(queue) if queue is not None else None
    if seen is None:
        seen = set()
        if queue is not None:
            _seen_by_stream[queue] = seen
    for message in _messages_in(given):
        ident = _id_of(message)
        if isinstance(ident, str):
            seen.add(ident)
    return seen


def emit_messages(run: Run, metadata: dict[str, Any], update: Any, seen: set[str]) -> None:
    """Stream the messages of a node's update that the stream has not carried yet.

    For ``stream_events`` (message events), tool messages are left out: tool calls
    have a stream of their own there.
    """
    for message in _messages_in(update):
        if run.message_events and type(message).__name__ == "ToolMessage":
            continue
        ident = _id_of(message)
        if isinstance(ident, str):
            if ident in seen:
                continue
            seen.add(ident)
        run.emit("messages", (message, metadata))


def _call_metadata(caller: dict[str, Any], name: str, call_id: str, key: str) -> dict[str, Any]:
    """The metadata of the ``@task`` call ``key`` (``"2"``, ``"2.0"``) of a node or call."""
    index = int(key.rsplit(".", 1)[-1])
    return {
        **caller,
        "langgraph_node": name,
        "langgraph_triggers": ("__pregel_push",),
        "langgraph_path": ("__pregel_push", caller["langgraph_path"], index, True),
        "langgraph_checkpoint_ns": f"{caller['langgraph_checkpoint_ns']}|{name}:{call_id}",
    }


def _ignore(value: Any) -> None:
    return None


@contextmanager
def streaming_call(
    frame: TaskFrame, name: str, call_id: str, key: str, given: Mapping[str, Any]
) -> Iterator[Callable[[Any], None]]:
    """While a ``@task`` call's body runs: its models' tokens stream with its metadata.

    ``given`` holds its arguments by name or position; the block gets a function
    that streams the messages of the call's result (those not streamed yet).
    """
    run = frame.run
    caller = _streaming.get()
    if caller is None or not (run.listens("messages") or run.listens("tools")):
        yield _ignore
        return
    metadata = _call_metadata(caller, name, call_id, key)
    seen = seen_messages(run, given)
    with streaming_tokens(run, metadata, seen):
        yield lambda value: emit_messages(run, metadata, value, seen)


@contextmanager
def streaming_tokens(run: Run, metadata: dict[str, Any], seen: set[str]) -> Iterator[None]:
    """While the block runs, LangChain chat models stream their tokens to the run."""
    marker = _streaming.set(metadata)
    try:
        if has_langchain():
            with _token_handler(run, metadata, seen):
                yield
        else:
            yield
    finally:
        _streaming.reset(marker)


@contextmanager
def _token_handler(run: Run, metadata: dict[str, Any], seen: set[str]) -> Iterator[None]:
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.runnables.config import var_child_runnable_config

    from pyctx_web.graph._engine.lc_tokens import EventTokenHandler, TokenHandler, callbacks_with

    outer: dict[str, Any] = dict(var_child_runnable_config.get() or {})
    tags = run.config.get("tags")
    own: list[BaseCallbackHandler] = []
    if run.listens("messages"):
        kind = EventTokenHandler if run.message_events else TokenHandler
        own.append(kind(run, metadata, seen))
    if run.listens("tools"):
        from pyctx_web.graph._engine.lc_tools import ToolEventHandler

        own.append(ToolEventHandler(run))
    callbacks = callbacks_with(outer.get("callbacks"), own, tags if isinstance(tags, list) else [])
    config: Any = {**outer, "callbacks": callbacks}
    token = var_child_runnable_config.set(config)
    try:
        yield
    finally:
        var_child_runnable_config.reset(token)
