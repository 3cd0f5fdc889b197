"""What ``add_node`` runs for what it is given: a function, a compiled graph or a Runnable.

A LangChain ``Runnable`` (an object with ``ainvoke``/``invoke`` that is not
callable itself) runs as ``await runnable.ainvoke(state, config)`` with the run's
config, as LangGraph calls it. A ``RunnableCallable`` (``langgraph._internal``, as
LangChain's ``create_agent`` builds its nodes and routers) runs as the function it
holds, with the injections that function's parameters ask for.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph._compiled import CompiledStateGraph
from pyctx_web.graph._subgraph import subgraph_node
from pyctx_web.graph._values import RetryPolicy

if TYPE_CHECKING:
    from pyctx_web.graph._internal._runnable import RunnableCallable

__all__ = ["is_runnable", "node_action", "node_ends", "retry_of", "router_function"]


def is_runnable(obj: object) -> bool:
    """Whether ``obj`` is a Runnable that is not callable itself (LangChain's ``Runnable``)."""
    return (
        not callable(obj)
        and not inspect.isroutine(obj)
        and (callable(getattr(obj, "ainvoke", None)) or callable(getattr(obj, "invoke", None)))
    )


def _is_runnable_callable(obj: object) -> TypeGuard[RunnableCallable]:
    # Not imported for a graph of plain functions: a RunnableCallable exists only once its
    # module is imported (LangChain's create_agent imports it through langgraph._internal).
    module = sys.modules.get("pyctx_web.graph._internal._runnable")
    return module is not None and isinstance(obj, module.RunnableCallable)


def router_function(router: Any) -> Any:
    """The function ``add_conditional_edges`` calls for ``router`` (a RunnableCallable's own)."""
    return router.node_function() if _is_runnable_callable(router) else router


def _name_of(obj: Any) -> str:
    if isinstance(obj, CompiledStateGraph):
        return obj.name
    if _is_runnable_callable(obj):
        return obj.get_name()
    if is_runnable(obj):
        get_name = getattr(obj, "get_name", None)
        name = get_name() if callable(get_name) else getattr(obj, "name", None)
        return name if isinstance(name, str) else type(obj).__name__
    return getattr(obj, "__name__", "")


def _runnable_node(runnable: Any) -> Callable[..., Any]:
    """A node function that runs ``runnable`` with the state and the run's config."""
    ainvoke = getattr(runnable, "ainvoke", None)

    async def node(state: Any, config: Any) -> Any:
        if callable(ainvoke):
            return await ainvoke(state, config)
        return runnable.invoke(state, config)

    node.__name__ = node.__qualname__ = _name_of(runnable) or "runnable"
    return node


def node_action(
    name: Any, fn: Any, graph_keys: Callable[[], frozenset[str]]
) -> tuple[Any, Callable[..., Any]]:
    """The node's name and the function the engine calls, from ``add_node(name, fn)``.

    ``add_node(fn)`` names the node after ``fn``; a compiled graph becomes a
    subgraph node on the keys ``graph_keys()`` gives; a Runnable is wrapped.
    """
    if fn is None:
        if isinstance(name, str) or not (
            callable(name)
            or isinstance(name, CompiledStateGraph)
            or _is_runnable_callable(name)
            or is_runnable(name)
        ):
            raise ArgumentTypeError(f"add_node() needs a function for node {name!r}")
        fn, name = name, _name_of(name)
    if isinstance(fn, CompiledStateGraph):
        return name, subgraph_node(fn, graph_keys)
    if _is_runnable_callable(fn):
        return name, fn.node_function()
    if is_runnable(fn):
        return name, _runnable_node(fn)
    return name, fn


def node_ends(destinations: Any, declared: tuple[str, ...]) -> tuple[str, ...]:
    """Where a node's ``Command`` may go: ``destinations=`` (names, or names to labels) or
    else what its ``-> Command[Literal[...]]`` annotation declared."""
    if destinations is None:
        return declared
    if isinstance(destinations, str) or not isinstance(destinations, Mapping | tuple | list):
        raise ArgumentTypeError(
            "add_node() destinations must be a tuple of node names or a dict of names to "
            f"labels, not {destinations!r}"
        )
    return tuple(destinations)


def retry_of(retry_policy: RetryPolicy | None, retry: RetryPolicy | None) -> RetryPolicy | None:
    """The node's retry policy from ``retry_policy=`` or its alias ``retry=``."""
    if retry_policy is not None:
        if retry is not None:
            raise ArgumentTypeError("add_node() takes retry_policy or retry, not both")
        retry = retry_policy
    if retry is not None and not isinstance(retry, RetryPolicy):
        raise ArgumentTypeError(
            f"add_node() retry_policy must be a RetryPolicy or None, not {retry!r}"
        )
    return retry
