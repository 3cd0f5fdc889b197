"""``ValidationNode``: checks the tool calls of the last AI message against schemas, runs nothing.

Each call gets a ToolMessage: the arguments as validated JSON, or the validation
error (with ``additional_kwargs["is_error"] = True``) for the model to fix.
Schemas: pydantic models (v2 or v1), LangChain tools, or typed functions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.tools.base import create_schema_from_function
from pydantic import BaseModel, ValidationError
from pydantic.v1 import BaseModel as BaseModelV1
from pydantic.v1 import ValidationError as ValidationErrorV1

from pyctx_web.graph.prebuilt.tool_node import _last_ai, _messages_of

__all__ = ["ValidationNode"]


def _default_format_error(error: BaseException, call: ToolCall, schema: Any) -> str:
    return f"{error!r}\n\nRespond after fixing all validation errors."


def _schema_of(item: Any) -> tuple[str, Any]:
    if isinstance(item, BaseTool):
        if item.args_schema is None:
            raise ValueError(f"tool {item.name!r} has no args_schema to validate against")
        return item.name, item.args_schema
    if isinstance(item, type) and issubclass(item, (BaseModel, BaseModelV1)):
        return item.__name__, item
    if callable(item):
        return item.__name__, create_schema_from_function(item.__name__, item)
    raise ValueError(f"ValidationNode takes pydantic models, tools or functions; got {item!r}")


class ValidationNode:
    """Validates each tool call of the last AI message; answers with one ToolMessage each."""

    def __init__(
        self,
        schemas: Sequence[Any],
        *,
        format_error: Callable[[BaseException, ToolCall, Any], str] | None = None,
        name: str = "validation",
        tags: list[str] | None = None,
    ) -> None:
        self.name = name
        self.tags = tags
        self.schemas_by_name = dict(_schema_of(item) for item in schemas)
        self._format_error = format_error or _default_format_error

    def __call__(self, state: Any) -> Any:
        """Validate the calls of ``state`` (as a graph node)."""
        return self.invoke(state)

    def invoke(self, state: Any, config: Any = None) -> Any:
        """Validate the calls of ``state``'s last AI message; a list or ``{"messages": ...}``."""
        calls = _last_ai(_messages_of(state, "messages")).tool_calls
        messages = [self._check(call) for call in calls]
        return messages if isinstance(state, list) else {"messages": messages}

    async def ainvoke(self, state: Any, config: Any = None) -> Any:
        """As :meth:`invoke` (validation does no I/O)."""
        return self.invoke(state, config)

    def _check(self, call: ToolCall) -> ToolMessage:
        schema = self.schemas_by_name.get(call["name"])
        if schema is None:
            names = ", ".join(self.schemas_by_name)
            content = f"Unrecognized tool name: {call['name']!r}; expected one of [{names}]"
            return _error_message(content, call)
        try:
            if issubclass(schema, BaseModelV1):
                content = schema.validate(call["args"]).json()
            else:
                content = schema.model_validate(call["args"]).model_dump_json()
        except (ValidationError, ValidationErrorV1) as error:
            return _error_message(self._format_error(error, call, schema), call)
        return ToolMessage(content, name=call["name"], tool_call_id=call["id"])


def _error_message(content: str, call: ToolCall) -> ToolMessage:
    return ToolMessage(
        content, name=call["name"], tool_call_id=call["id"], additional_kwargs={"is_error": True}
    )
