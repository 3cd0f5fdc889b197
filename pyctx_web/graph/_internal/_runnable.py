"""``langgraph._internal._runnable``: :class:`RunnableCallable`, a node made of a sync and an
async function, as LangChain's ``create_agent`` builds its nodes and routers.

Given to ``add_node`` or ``add_conditional_edges``, it runs as the function it holds,
as in LangGraph: given both, the sync one under a sync call (``invoke``, ``stream``)
and the async one under ``ainvoke``/``astream``; given one, that one. Each gets, as any
node does, the ``runtime``, ``config``, ``writer`` or ``store`` its parameters ask for.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph._sync import in_sync_form

__all__ = ["RunnableCallable"]


class RunnableCallable:
    """A node or router given as a sync function, an async function, or both.

    ``func`` or ``afunc`` may be ``None``, not both. ``name`` defaults to the
    function's name; ``tags``, ``trace``, ``recurse``, ``explode_args`` and other
    keywords are kept as given (pyctx_web's runs trace no node spans).
    """

    def __init__(
        self,
        func: Callable[..., Any] | None,
        afunc: Callable[..., Awaitable[Any]] | None = None,
        *,
        name: str | None = None,
        tags: Sequence[str] | None = None,
        trace: bool = True,
        recurse: bool = True,
        explode_args: bool = False,
        **kwargs: Any,
    ) -> None:
        if func is None and afunc is None:
            # LangGraph's message; an ArgumentValueError is a ValueError, as LangGraph's is.
            raise ArgumentValueError("At least one of func or afunc must be provided.")
        for given, what in ((func, "func"), (afunc, "afunc")):
            if given is not None and not callable(given):
                raise ArgumentTypeError(
                    f"RunnableCallable {what} must be a function or None, not {given!r}"
                )
        if name is None:
            named = getattr(func if func is not None else afunc, "__name__", None)
            name = named if isinstance(named, str) and named != "<lambda>" else None
        self.name = name
        self.func = func
        self.afunc = afunc
        self.tags = tags
        self.trace = trace
        self.recurse = recurse
        self.explode_args = explode_args
        self.kwargs = kwargs

    def get_name(self) -> str:
        """The name a node made of it takes when ``add_node`` is given none."""
        return self.name or type(self).__name__

    def node_function(self) -> Callable[..., Any]:
        """The function a graph runs for it: its one form, or the one matching the call."""
        func, afunc = self.func, self.afunc
        if afunc is None or func is None:
            only = func or afunc
            assert only is not None  # the constructor refuses neither
            return only

        # The sync form's parameters and annotations: the graph injects what they ask for.
        @functools.wraps(func)
        def either(*args: Any, **kwargs: Any) -> Any:
            return func(*args, **kwargs) if in_sync_form() else afunc(*args, **kwargs)

        return either

    def __repr__(self) -> str:
        return f"RunnableCallable({self.get_name()})"
