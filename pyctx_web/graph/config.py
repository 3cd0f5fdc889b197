"""The current run's config and stream writer, from anywhere in a node: ``langgraph.config``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyctx_web.errors import ContextMissingError
from pyctx_web.graph._engine.frames import Run, current_run

__all__ = ["get_config", "get_stream_writer"]


def _current(operation: str) -> Run:
    run = current_run.get_store()
    if run is None:
        raise ContextMissingError(
            f"{operation} was called outside a graph run",
            operation=operation,
            source="graph run",
        )
    return run


def get_config() -> dict[str, Any]:
    """The config of the run the calling code belongs to.

    ``{"configurable": {"thread_id": ..., ...}, "recursion_limit": ..., "run_id": ...}``;
    a copy, so changing it changes nothing. Outside a run it raises
    :class:`~pyctx_web.errors.ContextMissingError`.
    """
    run = _current("get_config()")
    config = dict(run.config)
    config["configurable"] = dict(config.get("configurable") or {})
    config["configurable"].setdefault("thread_id", run.thread_id)
    config.setdefault("run_id", run.run_id)
    return config


def get_stream_writer() -> Callable[[Any], None]:
    """Return a function that sends chunks to ``stream_mode="custom"`` consumers of the run.

    Call it from a node or anything the node calls. Chunks are dropped when
    nobody streams the custom mode. Outside a run it raises
    :class:`~pyctx_web.errors.ContextMissingError`.
    """
    run = _current("get_stream_writer()")

    def write(chunk: Any) -> None:
        run.emit("custom", chunk)

    return write
