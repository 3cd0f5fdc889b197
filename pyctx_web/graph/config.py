"""The current run's config and stream writer, from anywhere in a node: ``langgraph.config``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyctx_web.graph._engine.frames import Run, current_run
from pyctx_web.graph._engine.task_config import visible_config
from pyctx_web.graph.errors import OutsideRunError

__all__ = ["get_config", "get_store", "get_stream_writer"]


def _current(operation: str) -> Run:
    run = current_run.get_store()
    if run is None:
        raise OutsideRunError(
            f"{operation} was called outside a graph run",
            operation=operation,
            source="graph run",
        )
    return run


def get_config() -> dict[str, Any]:
    """The config of the task the calling code belongs to, as LangGraph gives it.

    In a node (or a ``@task`` call), the run's config made the task's: its
    ``configurable`` has the task's ``checkpoint_ns`` (``"node:task_id"``) and
    ``checkpoint_map``, its ``metadata`` the ``thread_id`` and the task's
    ``langgraph_step``, ``langgraph_node``, ``langgraph_triggers``, ``langgraph_path``
    and ``langgraph_checkpoint_ns``. Elsewhere in a run, the run's config with its
    ``thread_id`` and ``run_id``. A copy, so changing it changes nothing. Outside a run
    it raises :class:`~pyctx_web.graph.errors.OutsideRunError`.
    """
    return visible_config(_current("get_config()"))


def get_store() -> Any:
    """The store of the run the calling code belongs to (``compile(store=...)``), or ``None``.

    Outside a run it raises :class:`~pyctx_web.graph.errors.OutsideRunError`.
    """
    return _current("get_store()").store


def get_stream_writer() -> Callable[[Any], None]:
    """Return a function that sends chunks to ``stream_mode="custom"`` consumers of the run.

    Call it from a node or anything the node calls. Chunks are dropped when
    nobody streams the custom mode. Outside a run it raises
    :class:`~pyctx_web.graph.errors.OutsideRunError`.
    """
    return _current("get_stream_writer()").writer()
