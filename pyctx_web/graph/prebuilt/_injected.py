"""What a tool asks ToolNode for besides the model's arguments: state, store, runtime.

``Annotated[dict, InjectedState]`` (or ``InjectedState("field")``) gets the graph
state (or one field of it), ``Annotated[BaseStore, InjectedStore()]`` the graph's
store, and a ``ToolRuntime`` parameter all of it at once. LangChain's tool schema
leaves these out of what the model sees (they are ``InjectedToolArg``\\ s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, get_args, get_origin, get_type_hints

from langchain_core.tools import BaseTool, InjectedToolArg
from langchain_core.tools.base import (
    _DirectlyInjectedToolArg,
    _is_injected_arg_type,
    get_all_basemodel_annotations,
)
from typing_extensions import TypeVar

__all__ = [
    "SKIP",
    "STRIP",
    "InjectedState",
    "InjectedStore",
    "ToolRuntime",
    "has_default",
    "injections_of",
]

STRIP = "strip"
"""What :func:`injections_of` says of another injected parameter: drop what the model sent."""

ContextT = TypeVar("ContextT", default=None)
StateT = TypeVar("StateT", default=Any)


class InjectedState(InjectedToolArg):
    """Marks a tool parameter that receives the graph state, or its ``field`` when named."""

    def __init__(self, field: str | None = None) -> None:
        self.field = field


class InjectedStore(InjectedToolArg):
    """Marks a tool parameter that receives the graph's store (``compile(store=...)``)."""


@dataclass
class ToolRuntime(_DirectlyInjectedToolArg, Generic[ContextT, StateT]):
    """What a tool running in ToolNode may read: its call's id, the state, the run's parts."""

    state: Any
    context: Any
    config: Any
    stream_writer: Any
    tool_call_id: str | None
    store: Any
    execution_info: Any = None
    server_info: Any = None
    tools: list[Any] = field(default_factory=list)

    def emit_output_delta(self, delta: Any) -> None:
        """Stream ``delta``, a part of the tool's output, as a ``tools`` event (if one listens)."""
        from pyctx_web.graph._engine.lc_tools import output_delta_writer

        writer = output_delta_writer()
        if writer is not None:
            writer(delta)


def _marker(hint: Any) -> Any:
    """The InjectedState/InjectedStore marker of ``hint`` (an Annotated type), or None."""
    for extra in get_args(hint)[1:] if hasattr(hint, "__metadata__") else ():
        if isinstance(extra, (InjectedState, InjectedStore)):
            return extra
        if isinstance(extra, type) and issubclass(extra, (InjectedState, InjectedStore)):
            return extra()
    return None


def _is_runtime(hint: Any) -> bool:
    origin = get_origin(hint) or hint
    return isinstance(origin, type) and issubclass(origin, ToolRuntime)


def _function_hints(tool: BaseTool) -> dict[str, Any]:
    """The parameter annotations of the function behind ``tool`` (``{}`` when unreadable)."""
    func = getattr(tool, "func", None) or getattr(tool, "coroutine", None)
    if func is None:
        return {}
    try:
        hints = get_type_hints(func, include_extras=True)
    except (TypeError, ValueError, NameError):
        return {}  # unresolvable annotations: the schema's are read alone
    hints.pop("return", None)
    return hints


def injections_of(tool: BaseTool) -> dict[str, Any]:
    """Each injected parameter of ``tool`` and what it asks for: a marker or ToolRuntime.

    As in LangGraph, the tool's schema and its function's own parameters are read (a
    schema given to the tool lists only what the model sends), and a parameter named
    ``runtime`` gets the ToolRuntime whatever its annotation.
    """
    try:
        schema = tool.get_input_schema()
        hints = {**_function_hints(tool), **get_all_basemodel_annotations(schema)}
    except (TypeError, ValueError, NameError):
        return {}
    found: dict[str, Any] = {}
    for name, hint in hints.items():
        if _is_runtime(hint) or name == "runtime":
            found[name] = ToolRuntime
        elif (marker := _marker(hint)) is not None:
            found[name] = marker
        elif _is_injected_arg_type(hint):  # LangChain fills it (a call id...); never the model
            found[name] = STRIP
    return found


SKIP: Any = object()
"""What an InjectedState field the state lacks gives: the tool's parameter default applies."""


def has_default(tool: BaseTool, param: str) -> bool:
    """Whether ``tool``'s parameter ``param`` may be left out (it has a default)."""
    fields = getattr(tool.get_input_schema(), "model_fields", {})
    found = fields.get(param)
    return found is not None and not found.is_required()
