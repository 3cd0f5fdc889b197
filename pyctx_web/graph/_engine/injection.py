"""What a node receives besides its state, chosen by its parameters, as in LangGraph.

A node ``fn(state, ...)`` may ask, by parameter name or annotation, for
``runtime: Runtime[Ctx]`` (the run's context, stream writer and execution
info), ``config: RunnableConfig`` (the run's config), ``writer: StreamWriter``
or ``store`` (always ``None``: stores are not supported). Any other second
positional parameter receives pyctx_web's run context (``ctx``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar, get_origin, get_type_hints

from pyctx_web.errors import ContextMissingError
from pyctx_web.graph._engine.channels import is_state_type
from pyctx_web.graph._engine.frames import Run, TaskFrame, current_run, current_task
from pyctx_web.graph._engine.signatures import signature
from pyctx_web.graph.errors import InvalidGraphError

__all__ = [
    "ExecutionInfo",
    "Runtime",
    "get_runtime",
    "injected",
    "node_input_type",
    "node_parameters",
    "run_config",
]

ContextT = TypeVar("ContextT")

_BY_NAME: Final = {"runtime": "runtime", "config": "config", "writer": "writer", "store": "store"}
_BY_ANNOTATION: Final = {
    "Runtime": "runtime",
    "RunnableConfig": "config",
    "StreamWriter": "writer",
    "BaseStore": "store",
}


@dataclass(frozen=True, slots=True)
class ExecutionInfo:
    """Where the calling node runs: its thread, run, task and attempt."""

    checkpoint_id: str
    """The checkpoint whose step the node runs in ("" without a checkpointer)."""
    checkpoint_ns: str
    """The namespace of the graph it runs in ("" for the top-level graph)."""
    task_id: str
    """The node's task."""
    thread_id: str | None = None
    """The thread; ``None`` without a checkpointer."""
    run_id: str | None = None
    """The run."""
    node_attempt: int = 1
    """Which attempt of the node this is, from 1."""


def _no_writer(chunk: Any) -> None:
    return None


@dataclass(frozen=True, slots=True)
class Runtime(Generic[ContextT]):
    """What a node of a run can use besides its state: ``runtime: Runtime[Ctx]``.

    The LangGraph face of pyctx_web's run context: ``runtime.context`` is the
    run's ``context=`` (``invoke(..., context=Ctx(...))``, or compile's
    default), the same object as ``ctx.data``.
    """

    context: ContextT = None  # type: ignore[assignment]
    """The run's context: the ``context=`` of the call, or the graph's default."""
    store: Any = None
    """Always ``None``: stores are not supported."""
    stream_writer: Callable[[Any], None] = _no_writer
    """Sends a chunk to ``stream_mode="custom"`` consumers."""
    previous: Any = None
    """The thread's previous return value (functional API), else ``None``."""
    execution_info: ExecutionInfo | None = None
    """Where the calling node runs; ``None`` outside a node."""


def run_config(run: Run) -> dict[str, Any]:
    """The config of ``run``, as ``get_config()`` and a ``config`` parameter show it."""
    config = dict(run.config)
    configurable = dict(config.get("configurable") or {})
    configurable.setdefault("thread_id", run.thread_id)
    configurable.setdefault("checkpoint_ns", "")
    config["configurable"] = configurable
    config.setdefault("run_id", run.run_id)
    return config


def _runtime(run: Run, frame: TaskFrame | None) -> Runtime[Any]:
    info = None
    if frame is not None:
        info = ExecutionInfo(
            checkpoint_id=frame.checkpoint_id,
            checkpoint_ns="",
            task_id=frame.task.id,
            thread_id=run.thread_id,
            run_id=run.run_id,
            node_attempt=frame.attempt,
        )
    return Runtime(run.context, None, run.writer(), None, info)


def get_runtime(context_schema: type[ContextT] | None = None) -> Runtime[ContextT]:
    """The :class:`Runtime` of the run the calling code belongs to.

    ``context_schema`` only types the result. Outside a run it raises
    :class:`~pyctx_web.errors.ContextMissingError`.
    """
    run = current_run.get_store()
    if run is None:
        raise ContextMissingError(
            "get_runtime() was called outside a graph run",
            operation="get_runtime()",
            source="graph run",
        )
    return _runtime(run, current_task.get_store())


def _kind(param: inspect.Parameter, hints: dict[str, Any]) -> str | None:
    hint = hints.get(param.name, param.annotation)
    origin = get_origin(hint) or hint
    label = origin if isinstance(origin, str) else getattr(origin, "__name__", "")
    label = label.split("[", 1)[0].rsplit(".", 1)[-1]
    return _BY_ANNOTATION.get(label) or _BY_NAME.get(param.name)


def _signature(fn: Callable[..., Any]) -> tuple[inspect.Signature | None, dict[str, Any]]:
    try:
        sig = signature(fn)
    except (TypeError, ValueError):
        # Callables without a signature (some builtins): pass the state only.
        return None, {}
    target = fn if inspect.isroutine(fn) else type(fn).__call__
    try:
        hints = get_type_hints(target)
    except Exception:
        # Unresolvable annotations: parameters are recognised by their names.
        hints = {}
    return sig, hints


def node_input_type(fn: Callable[..., Any]) -> type | None:
    """The class ``fn`` annotates its first parameter (the state) with, if any."""
    sig, hints = _signature(fn)
    if sig is None or not sig.parameters:
        return None
    hint = hints.get(next(iter(sig.parameters)))
    return hint if is_state_type(hint) else None


def node_parameters(name: str, fn: Callable[..., Any]) -> tuple[bool, tuple[tuple[str, str], ...]]:
    """Whether ``fn`` takes pyctx_web's run context second, and the keyword injections.

    Raises :class:`InvalidGraphError` when ``fn`` needs an argument no node is given.
    """
    sig, hints = _signature(fn)
    if sig is None:
        return False, ()
    params = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True, ()
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not positional:
        raise InvalidGraphError(
            f"node {name!r}: function {fn!r} must take (state) or (state, ctx), "
            f"its signature is {sig}"
        )
    takes_ctx, inject = False, []
    for param in params[1:]:
        kind = _kind(param, hints)
        if kind is not None and param.kind is not param.POSITIONAL_ONLY:
            inject.append((param.name, kind))
        elif param is positional[1] if len(positional) > 1 else False:
            takes_ctx = True
        elif param.default is param.empty and param.kind is not param.VAR_KEYWORD:
            raise InvalidGraphError(
                f"node {name!r}: function {fn!r} must take (state) or (state, ctx), and may ask "
                f"for runtime, config, writer or store; nothing is given for its parameter "
                f"{param.name!r} (signature {sig})"
            )
    return takes_ctx, tuple(inject)


def injected(run: Run, frame: TaskFrame, inject: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """The keyword arguments of a node that asked for ``inject``."""
    values: dict[str, Any] = {}
    for param, kind in inject:
        if kind == "runtime":
            values[param] = _runtime(run, frame)
        elif kind == "config":
            values[param] = run_config(run)
        elif kind == "writer":
            values[param] = run.writer()
        else:
            values[param] = None
    return values
