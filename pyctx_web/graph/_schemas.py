"""The schemas a compiled graph describes its runs with: its context schema, as LangGraph's.

``graph.context_schema`` is the type given to ``StateGraph(..., context_schema=...)``;
``get_context_jsonschema()`` its JSON Schema. LangGraph's deprecated
``config_schema()`` and ``get_config_jsonschema()`` (a model whose
``configurable`` field is the context schema) warn with
:class:`~pyctx_web.graph.warnings.LangGraphDeprecatedSinceV10`, as LangGraph's do.
The JSON Schemas and the model need pydantic, imported only when asked for.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from typing import Any, cast, get_type_hints

from pyctx_web.errors import ArgumentValueError, UsageError
from pyctx_web.graph._engine.channels import is_typed_dict
from pyctx_web.graph.warnings import LangGraphDeprecatedSinceV10

__all__ = ["GraphSchemas"]


def _pydantic(what: str) -> Any:
    """The pydantic module, or :class:`UsageError` saying that ``what`` needs it."""
    try:
        import pydantic
    except ImportError:
        raise UsageError(f"{what} needs pydantic; install pydantic") from None
    return pydantic


class GraphSchemas:
    """What a compiled graph tells of the context its runs take."""

    # Any, not GraphSpec: the class's hints are resolved at import, before the run machinery.
    spec: Any
    name: str

    @property
    def context_schema(self) -> type | None:
        """The type of the runs' context (``StateGraph(..., context_schema=...)``), or ``None``."""
        schema: type | None = self.spec.context_schema
        return schema

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """The JSON Schema of :attr:`context_schema` (``None`` without one); needs pydantic."""
        schema: Any = self.context_schema
        if schema is None:
            return None
        pydantic = _pydantic("get_context_jsonschema()")
        if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
            described: dict[str, Any] = cast(Any, schema).model_json_schema()
            return described
        if is_typed_dict(schema) or dataclasses.is_dataclass(schema):
            adapted: dict[str, Any] = pydantic.TypeAdapter(schema).json_schema()
            return adapted
        raise ArgumentValueError(
            f"Invalid context schema type: {schema}. Must be a BaseModel, TypedDict or dataclass."
        )

    def config_schema(self, *, include: Sequence[str] | None = None) -> type:
        """Deprecated: a pydantic model of the config, its ``configurable`` the context schema.

        ``include`` names further ``RunnableConfig`` keys to describe (``"tags"``...).
        """
        warnings.warn(
            "`config_schema` is deprecated. Use `get_context_jsonschema` for the relevant"
            " schema instead.",
            category=LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        pydantic = _pydantic("config_schema()")
        fields: dict[str, Any] = {}
        if self.context_schema is not None:
            fields["configurable"] = (self.context_schema, None)
        wanted = [name for name in include or () if name != "configurable"]
        if wanted:
            try:
                from langchain_core.runnables import RunnableConfig
            except ImportError:
                raise UsageError("config_schema(include=...) needs langchain-core") from None
            hints = get_type_hints(RunnableConfig)
            fields.update({name: (hints[name], None) for name in wanted if name in hints})
        model: type = pydantic.create_model(f"{self.name}Config", **fields)
        return model

    def get_config_jsonschema(self, *, include: Sequence[str] | None = None) -> dict[str, Any]:
        """Deprecated: the JSON Schema of :meth:`config_schema`'s model."""
        warnings.warn(
            "`get_config_jsonschema` is deprecated. Use `get_context_jsonschema` instead.",
            category=LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=LangGraphDeprecatedSinceV10)
            model: Any = self.config_schema(include=include)
        described: dict[str, Any] = model.model_json_schema()
        return described
