"""Middleware: classes that change a run at its hook points, with LangChain v1's hook names.

An :class:`AgentMiddleware` overrides the hooks it needs; a graph compiled with
``middleware=[...]`` calls them for every run, first listed outermost:

- ``before_agent(state, runtime)`` / ``abefore_agent``: before the run's first
  node; ``state`` is what started the run (its input, or the ``Command`` that
  resumes it). Raising stops the run with that error.
- ``after_agent(state, runtime)`` / ``aafter_agent``: once the run has reached
  its end (not when it pauses for a question, fails or is cancelled), with the
  run's final values. Called innermost first.
- ``awrap_tool_call(request, handler)``: around each tool call of
  ``runtime.call_tool(s)``. ``await handler(request)`` runs the inner
  middleware and the tool and returns its result; the middleware may pass
  ``request.override(tool_call=...)`` instead (other arguments, checked against
  the tool's schema again), return another result, or return without calling
  ``handler`` (a cache, a guard that answers for the tool).
- ``awrap_node_call(request, handler)``: around each node of the graph
  (pyctx_web's: LangChain has no hook for nodes that are not its model).
  ``await handler(request)`` runs the node and returns its update (``None``
  when it paused for a question); what the node raised is raised from
  ``handler``. Raising fails the node with that error. What the hook returns is
  not used: the node's update is what the node returned, and a node that
  failed has failed even if the hook catches its error (a middleware observes
  and vetoes nodes; it does not rewrite them).

The ``before``/``after`` hooks return ``None``: state updates from them are
LangChain's agent-graph feature (``create_agent``), not a compiled graph's.
Tool calls run asynchronously, so the wrap hooks are the async ``awrap_*``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Generic, TypeVar

from pyctx_web._homes import publish
from pyctx_web._records import lazy_dataclass
from pyctx_web.context import is_awaitable
from pyctx_web.errors import ArgumentTypeError, UsageError
from pyctx_web.graph._engine.runtime import Runtime
from pyctx_web.graph._runctx.tools import Tool

__all__ = [
    "AgentMiddleware",
    "NodeCallRequest",
    "ToolCallRequest",
    "check_middleware",
    "run_after_agent",
    "run_before_agent",
    "wrap_node_call",
    "wrap_tool_call",
]

ContextT = TypeVar("ContextT")
T = TypeVar("T")


@lazy_dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """A tool call as ``awrap_tool_call`` sees it."""

    tool_call: Mapping[str, Any]
    """``{"name", "args", "id"}``, as LangChain's tool calls; ``args`` are the arguments."""
    tool: Tool
    """The tool that runs."""
    runtime: Runtime[Any]
    """The run's runtime."""

    def override(self, **changes: Any) -> ToolCallRequest:
        """A copy with ``changes`` (``tool_call=...``), to pass to ``handler``."""
        return replace(self, **changes)


@lazy_dataclass(frozen=True, slots=True)
class NodeCallRequest:
    """A node's execution as ``awrap_node_call`` sees it."""

    node: str
    """The node's name."""
    task_id: str
    """Its task in this step."""
    runtime: Runtime[Any]
    """The run's runtime."""


ToolHandler = Callable[[ToolCallRequest], Awaitable[Any]]
NodeHandler = Callable[[NodeCallRequest], Awaitable[Any]]


class AgentMiddleware(Generic[ContextT]):
    """Changes every run of a graph at the hooks it overrides; see the module's docstring."""

    @property
    def name(self) -> str:
        """Shown in errors: the class name, unless a subclass says otherwise."""
        return type(self).__name__

    def before_agent(self, state: Any, runtime: Runtime[ContextT]) -> dict[str, Any] | None:
        """Called before the run's first node; returns ``None``."""
        return None

    async def abefore_agent(self, state: Any, runtime: Runtime[ContextT]) -> None:
        """The async form of :meth:`before_agent`, which it calls unless overridden."""
        await _settle(self, "before_agent", self.before_agent(state, runtime))

    def after_agent(self, state: Any, runtime: Runtime[ContextT]) -> dict[str, Any] | None:
        """Called once the run has reached its end, with its final values; returns ``None``."""
        return None

    async def aafter_agent(self, state: Any, runtime: Runtime[ContextT]) -> None:
        """The async form of :meth:`after_agent`, which it calls unless overridden."""
        await _settle(self, "after_agent", self.after_agent(state, runtime))

    async def awrap_tool_call(self, request: ToolCallRequest, handler: ToolHandler) -> Any:
        """Run around one tool call; ``await handler(request)`` runs it."""
        return await handler(request)

    async def awrap_node_call(self, request: NodeCallRequest, handler: NodeHandler) -> Any:
        """Run around one node; ``await handler(request)`` runs it and returns its update."""
        return await handler(request)

    def __repr__(self) -> str:
        return f"<{type(self).__qualname__} {self.name!r}>"


async def _settle(middleware: AgentMiddleware[Any], hook: str, result: Any) -> None:
    """Await what a hook returned; refuse a state update, which a run does not apply."""
    if is_awaitable(result):
        result = await result
    if result is not None:
        raise UsageError(
            f"middleware {middleware.name!r}: {hook}() returned {type(result).__name__!r}; "
            f"a compiled graph's {hook} hooks return None (state updates from them belong "
            f"to create_agent): update the state in a node"
        )


def _overrides(middleware: AgentMiddleware[Any], *hooks: str) -> bool:
    kind = type(middleware)
    return any(getattr(kind, hook) is not getattr(AgentMiddleware, hook) for hook in hooks)


def check_middleware(middleware: Sequence[Any]) -> tuple[AgentMiddleware[Any], ...]:
    """``middleware`` checked: AgentMiddleware instances, no sync wrap hooks."""
    if isinstance(middleware, (str, bytes, Mapping)) or not isinstance(middleware, Sequence):
        raise ArgumentTypeError(
            f"middleware must be a list of AgentMiddleware, not {type(middleware).__name__!r}"
        )
    for item in middleware:
        if not isinstance(item, AgentMiddleware):
            raise ArgumentTypeError(
                f"middleware must be AgentMiddleware instances, not {type(item).__name__!r}"
            )
        for sync in ("wrap_tool_call", "wrap_node_call"):
            if callable(getattr(item, sync, None)):
                raise ArgumentTypeError(
                    f"middleware {item.name!r} defines {sync}(); tool calls and nodes run "
                    f"asynchronously here: define async a{sync}(request, handler) instead"
                )
    return tuple(middleware)


async def run_before_agent(
    middleware: Sequence[AgentMiddleware[Any]], state: Any, runtime: Runtime[Any]
) -> None:
    """Call every ``before_agent`` hook, first listed first."""
    for item in middleware:
        if _overrides(item, "before_agent", "abefore_agent"):
            # An overridden async form may return an update too: refused as the sync one's.
            before: Callable[..., Awaitable[Any]] = item.abefore_agent
            await _settle(item, "abefore_agent", await before(state, runtime))


async def run_after_agent(
    middleware: Sequence[AgentMiddleware[Any]], state: Any, runtime: Runtime[Any]
) -> None:
    """Call every ``after_agent`` hook, last listed first (the innermost first)."""
    for item in reversed(middleware):
        if _overrides(item, "after_agent", "aafter_agent"):
            after: Callable[..., Awaitable[Any]] = item.aafter_agent
            await _settle(item, "aafter_agent", await after(state, runtime))


def _chain(
    middleware: Sequence[AgentMiddleware[Any]],
    hook: str,
    innermost: Callable[[T], Awaitable[Any]],
) -> Callable[[T], Awaitable[Any]]:
    """``innermost`` wrapped by the middleware that override ``hook``, first listed outermost."""
    handler = innermost
    for item in reversed([m for m in middleware if _overrides(m, hook)]):
        handler = _wrapped(item, hook, handler)
    return handler


def _wrapped(
    item: AgentMiddleware[Any], hook: str, inner: Callable[[T], Awaitable[Any]]
) -> Callable[[T], Awaitable[Any]]:
    async def call(request: T) -> Any:
        return await getattr(item, hook)(request, inner)

    return call


async def wrap_tool_call(
    middleware: Sequence[AgentMiddleware[Any]], request: ToolCallRequest, run: ToolHandler
) -> Any:
    """Run ``run`` (the tool) inside every ``awrap_tool_call`` hook; return the result."""
    return await _chain(middleware, "awrap_tool_call", run)(request)


async def wrap_node_call(
    middleware: Sequence[AgentMiddleware[Any]], request: NodeCallRequest, run: NodeHandler
) -> Any:
    """Run ``run`` (the node) inside every ``awrap_node_call`` hook."""
    return await _chain(middleware, "awrap_node_call", run)(request)


publish("pyctx_web.graph.middleware", AgentMiddleware, NodeCallRequest, ToolCallRequest)
