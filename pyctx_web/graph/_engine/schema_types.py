"""The dataclasses, enums and pydantic models a state schema names, which its checkpoints
may hold."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Iterable
from enum import Enum
from typing import Annotated, Any, ForwardRef, Literal, get_args, get_origin, get_type_hints

from pyctx_web.graph._engine.serde_models import is_model_class

__all__ = ["collect_types", "hints_of", "type_key"]


def type_key(cls: type) -> str:
    """The name a checkpoint stores ``cls`` under: ``module.QualName``."""
    return f"{cls.__module__}.{cls.__qualname__}"


def hints_of(cls: type) -> Iterable[Any]:
    """The resolved annotations of ``cls``; none when they cannot be resolved."""
    try:
        return get_type_hints(cls, include_extras=True).values()
    except (NameError, TypeError):
        return ()  # unresolvable annotations only hide nested types


def collect_types(
    annotation: Any, found: dict[str, type] | None = None, seen: set[int] | None = None
) -> dict[str, type]:
    """Return ``{"module.QualName": cls}`` for the dataclasses, enums and pydantic models
    ``annotation`` names."""
    found = {} if found is None else found
    seen = set() if seen is None else seen
    if isinstance(annotation, str | ForwardRef) or id(annotation) in seen:
        return found
    origin = get_origin(annotation)
    if origin is Annotated:
        return collect_types(get_args(annotation)[0], found, seen)
    if origin is Literal:
        for arg in get_args(annotation):
            if isinstance(arg, Enum):
                found[type_key(type(arg))] = type(arg)
        return found
    if origin is not None or isinstance(annotation, types.UnionType):
        for arg in get_args(annotation):
            collect_types(arg, found, seen)
        return found
    if not isinstance(annotation, type):
        return found
    if issubclass(annotation, Enum):
        found[type_key(annotation)] = annotation
    elif (
        dataclasses.is_dataclass(annotation)
        or hasattr(annotation, "__required_keys__")
        or is_model_class(annotation)
    ):
        # A dataclass, a pydantic model or a TypedDict (``typing``'s or
        # ``typing_extensions``'): look inside.
        seen.add(id(annotation))
        if not hasattr(annotation, "__required_keys__"):
            found[type_key(annotation)] = annotation
        for hint in hints_of(annotation):
            collect_types(hint, found, seen)
    return found
