"""How ToolNode turns a tool's exception into the ToolMessage the model reads next."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Union, get_args, get_origin, get_type_hints

from langchain_core.tools import ToolException

__all__ = ["TOOL_CALL_ERROR_TEMPLATE", "ToolInvocationError", "error_content"]

TOOL_CALL_ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."
"""The content of a ToolMessage for a handled exception (``error`` is its repr)."""


class ToolInvocationError(ToolException):
    """A tool call whose arguments the tool's schema refuses."""

    def __init__(
        self,
        tool_name: str,
        source: Exception,
        tool_kwargs: dict[str, Any],
        filtered_errors: list[Any] | None = None,
    ) -> None:
        self.tool_name = tool_name
        self.source = source
        self.tool_kwargs = tool_kwargs
        self.filtered_errors = filtered_errors
        """The validation errors of the model's arguments (injected ones left out)."""
        super().__init__(
            f"Error invoking tool '{tool_name}' with kwargs {tool_kwargs} with error:\n"
            f" {_described(source, filtered_errors)}\n Please fix the error and try again."
        )


def _described(source: Exception, errors: list[Any] | None) -> str:
    """A validation error's problems, one ``field: message`` a line; else the error's text."""
    if errors is None:
        return str(source)
    lines = [f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}" for e in errors]
    return "\n".join(lines)  # no space after the first line, as LangGraph words it


def _handled_types(handler: Callable[..., Any]) -> tuple[type[BaseException], ...]:
    """The exception types a handler function declares in its first parameter."""
    params = list(inspect.signature(handler).parameters.values())
    if not params:
        return (Exception,)
    try:
        hint = get_type_hints(handler).get(params[0].name, params[0].annotation)
    except NameError:
        hint = params[0].annotation
    if hint is inspect.Parameter.empty:
        return (Exception,)
    kinds = get_args(hint) if get_origin(hint) in (Union, type(int | str)) else (hint,)
    if not all(isinstance(kind, type) and issubclass(kind, BaseException) for kind in kinds):
        raise ValueError(
            "handle_tool_errors' handler must annotate its parameter with exception types;"
            f" got {hint!r}"
        )
    return tuple(kinds)


def error_content(handle: Any, error: Exception) -> str | None:
    """The message for ``error`` under ``handle_tool_errors=handle``; None: let it raise."""
    if handle is None:  # the default: only a call the schema refuses goes back to the model
        return str(error) if isinstance(error, ToolInvocationError) else None
    if handle is False:
        return None
    if handle is True:
        return TOOL_CALL_ERROR_TEMPLATE.format(error=repr(error))
    if isinstance(handle, str):
        return handle
    if isinstance(handle, type) and issubclass(handle, BaseException):
        handle = (handle,)
    if isinstance(handle, tuple):
        return (
            TOOL_CALL_ERROR_TEMPLATE.format(error=repr(error))
            if isinstance(error, handle)
            else None
        )
    if callable(handle):
        return str(handle(error)) if isinstance(error, _handled_types(handle)) else None
    raise ValueError(
        f"handle_tool_errors must be a bool, str, exception type(s) or callable; got {handle!r}"
    )
