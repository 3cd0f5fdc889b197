"""Pydantic models and LangChain messages in checkpoints, known without importing either.

A model (pydantic v2's ``BaseModel``, not a LangChain message, which has a form
of its own) is stored as its class name (``module.QualName``) and its fields
(``model_fields`` and, for ``extra="allow"`` models, the extra ones), each encoded
as any state value. It is rebuilt with ``model_validate`` only if the graph may
name its class: the state schema and the annotations of the graph's keys name it
(at any depth), or one of the graph's own values was of that class in this
process (a response format's model, which LangChain's agent state names only by
a type variable). Stored data never makes the graph import a class. A stored
model whose class the graph may not name comes back as the dict of its fields,
as LangGraph's strict mode gives it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

__all__ = [
    "is_langchain_message",
    "is_model",
    "is_model_class",
    "langchain_message",
    "model_fields",
    "rebuild",
    "validate_model",
]


def _base_model() -> type | None:
    """pydantic's ``BaseModel`` once pydantic is loaded; before, no value can be a model."""
    main = sys.modules.get("pydantic.main")
    base = getattr(main, "BaseModel", None)
    return base if isinstance(base, type) else None


def is_model(value: Any) -> bool:
    """Whether ``value`` is an instance of a pydantic model."""
    base = _base_model()
    return base is not None and isinstance(value, base)


def is_model_class(cls: Any) -> bool:
    """Whether ``cls`` is a pydantic model class."""
    base = _base_model()
    return base is not None and isinstance(cls, type) and issubclass(cls, base)


def model_fields(value: Any) -> dict[str, Any]:
    """The field values of model ``value`` by name, the extra ones after the declared."""
    fields = {name: getattr(value, name) for name in type(value).model_fields}
    extra = getattr(value, "__pydantic_extra__", None)
    if extra:
        fields.update(extra)
    return fields


def validate_model(cls: Any, fields: dict[str, Any]) -> Any:
    """``cls`` rebuilt from its stored ``fields``, given by name even where a field has an alias."""
    if any(info.alias for info in cls.model_fields.values()):
        return cls.model_validate(fields, by_name=True)
    return cls.model_validate(fields)


def rebuild(what: str, build: Callable[[], Any]) -> Any:
    """``build()``, or ``ValueError`` naming ``what`` whatever it raised."""
    try:
        return build()
    except Exception as exc:
        raise ValueError(f"cannot rebuild {what}: {exc}") from exc


def is_langchain_message(value: Any) -> bool:
    """Whether ``value`` is a LangChain message (known without importing LangChain)."""
    cls = type(value)
    return cls.__module__.startswith("langchain_core.messages") and hasattr(value, "model_dump")


def langchain_message(data: dict[str, Any]) -> Any:
    """The LangChain message stored as ``data`` (LangChain's own dict form, whose loader
    picks the class from a fixed list); ``ValueError`` if it cannot be rebuilt."""

    def build() -> Any:
        from langchain_core.messages import messages_from_dict  # ImportError without it

        return messages_from_dict([data])[0]

    return rebuild("a LangChain message", build)
