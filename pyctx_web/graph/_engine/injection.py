"""What a node receives besides its state, chosen by its parameters, as in LangGraph.

A node ``fn(state, ...)`` may ask, by parameter name or annotation, for
``runtime: Runtime[Ctx]`` (the run's context, stream writer, execution info,
and pyctx_web's tools, memory and log), ``config: RunnableConfig`` (its task's
config), ``writer: StreamWriter`` or ``store: BaseStore`` (the graph's
store, ``None`` without one). Nothing else is given to a node.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final, get_origin

from pyctx_web.graph._engine.channels import is_state_type
from pyctx_web.graph._engine.frames import Run, TaskFrame
from pyctx_web.graph._engine.runtime import runtime_of
from pyctx_web.graph._engine.signatures import node_hints, signature
from pyctx_web.graph._engine.task_config import node_config
from pyctx_web.graph.errors import InvalidGraphError

__all__ = [
    "injected",
    "node_input_type",
    "node_parameters",
]


_BY_NAME: Final = {"runtime": "runtime", "config": "config", "writer": "writer", "store": "store"}
_BY_ANNOTATION: Final = {
    "Runtime": "runtime",
    "RunnableConfig": "config",
    "StreamWriter": "writer",
    "BaseStore": "store",
}


def _kind(param: inspect.Parameter, hints: dict[str, Any]) -> str | None:
    hint = hints.get(param.name, param.annotation)
    origin = get_origin(hint) or hint
    label = origin if isinstance(origin, str) else getattr(origin, "__name__", "")
    label = label.split("[", 1)[0].rsplit(".", 1)[-1]
    return _BY_ANNOTATION.get(label) or _BY_NAME.get(param.name)


def _signature(
    fn: Callable[..., Any], *, fresh: bool = False, last: bool = False
) -> tuple[inspect.Signature | None, dict[str, Any]]:
    try:
        sig = signature(fn)
    except (TypeError, ValueError):
        # Callables without a signature (some builtins): pass the state only.
        return None, {}
    target = fn if inspect.isroutine(fn) else type(fn).__call__
    try:
        hints: dict[str, Any] = node_hints(target, fresh=fresh, last=last)
    except Exception:
        # Unresolvable annotations: parameters are recognised by their names.
        hints = {}
    return sig, hints


def node_input_type(fn: Callable[..., Any]) -> type | None:
    """The class ``fn`` annotates its first parameter (the state) with, if any.

    ``add_node`` asks this last of a node's hints (:func:`node_hints`).
    """
    sig, hints = _signature(fn, last=True)
    if sig is None or not sig.parameters:
        return None
    hint = hints.get(next(iter(sig.parameters)))
    return hint if is_state_type(hint) else None


def node_parameters(name: str, fn: Callable[..., Any]) -> tuple[tuple[str, str], ...]:
    """The keyword parameters ``fn`` asks for besides its state, and what each gets.

    Raises :class:`InvalidGraphError` when ``fn`` needs an argument no node is given.
    ``add_node`` asks this first of a node's hints (:func:`node_hints`).
    """
    sig, hints = _signature(fn, fresh=True)
    if sig is None:
        return ()
    params = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return ()
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not positional:
        raise InvalidGraphError(
            f"node {name!r}: function {fn!r} must take the state as its first parameter, "
            f"its signature is {sig}"
        )
    inject = []
    for param in params[1:]:
        kind = _kind(param, hints)
        if kind is not None and param.kind is not param.POSITIONAL_ONLY:
            inject.append((param.name, kind))
        elif param.default is param.empty and param.kind is not param.VAR_KEYWORD:
            raise InvalidGraphError(
                f"node {name!r}: function {fn!r} takes the state and may ask for runtime, "
                f"config, writer or store; nothing is given for its parameter {param.name!r} "
                f"(signature {sig})"
            )
    return tuple(inject)


def injected(run: Run, frame: TaskFrame, inject: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """The keyword arguments of a node that asked for ``inject``."""
    values: dict[str, Any] = {}
    for param, kind in inject:
        if kind == "runtime":
            values[param] = runtime_of(run, frame)
        elif kind == "config":
            values[param] = node_config(frame)
        elif kind == "writer":
            values[param] = run.writer()
        else:
            values[param] = run.store
    return values
