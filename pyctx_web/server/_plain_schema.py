"""JSON Schemas of plain state types where pydantic is not installed (a page's worker).

The LangGraph Server describes a graph with pydantic's JSON Schemas, and so does
:mod:`.graph_schemas` where pydantic can be imported. A worker that never loads
pydantic still answers ``/assistants/{id}/schemas``: this module writes what
pydantic writes for the plain types a state holds (``str``, ``int``, ``float``,
``bool``, ``None``, lists, sets, dicts, ``Literal``, ``Optional`` and unions,
``Annotated`` reducers, ``NotRequired`` keys, nested TypedDicts and dataclasses
under ``$defs``, dataclass defaults), and ``{}`` (any value) for a type it does
not know, such as a LangChain message.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

__all__ = ["key_mark", "plain_object_schema", "plain_schema", "plain_state_schema", "title_of"]

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    None: {"type": "null"},
}
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}
_KEY_MARKS = {"NotRequired", "Required", "ReadOnly"}


def title_of(name: str) -> str:
    """A field's title as pydantic writes it: ``user_name`` -> ``User Name``."""
    return " ".join(part[:1].upper() + part[1:] for part in name.split("_") if part)


def _is_typed_dict(hint: Any) -> bool:
    return isinstance(getattr(hint, "__required_keys__", None), frozenset)


def _is_object(hint: Any) -> bool:
    return isinstance(hint, type) and (_is_typed_dict(hint) or dataclasses.is_dataclass(hint))


def key_mark(hint: Any) -> str | None:
    """``NotRequired``, ``Required`` or ``ReadOnly`` when ``hint`` is wrapped in one."""
    name = getattr(get_origin(hint), "_name", None) or getattr(get_origin(hint), "__name__", None)
    return name if name in _KEY_MARKS else None


class _Writer:
    """Writes schemas, collecting the nested objects' under ``$defs`` as pydantic does."""

    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}

    def field(self, hint: Any) -> dict[str, Any]:
        """The schema of one value of type ``hint``."""
        origin = get_origin(hint)
        if origin is Annotated or key_mark(hint):
            return self.field(get_args(hint)[0])
        if hint in _SCALARS:
            return dict(_SCALARS[hint])
        if origin is Literal:
            values = list(get_args(hint))
            kinds = {_JSON_TYPES.get(type(v)) for v in values}
            described: dict[str, Any] = {"enum": values}
            if len(kinds) == 1 and None not in kinds:
                described["type"] = kinds.pop()
            return described
        if origin in (Union, types.UnionType):
            return {"anyOf": [self.field(arg) for arg in get_args(hint)]}
        if hint in (list, tuple, set, frozenset) or origin in (list, set, frozenset):
            args = get_args(hint)
            unique = {"uniqueItems": True} if (origin or hint) in (set, frozenset) else {}
            return {"items": self.field(args[0]) if args else {}, "type": "array", **unique}
        if hint is dict or origin is dict:
            args = get_args(hint)
            values_of = {"additionalProperties": self.field(args[1])} if args else {}
            return {**values_of, "type": "object"}
        if _is_object(hint):
            if hint.__name__ not in self.defs:
                self.defs[hint.__name__] = {}  # taken before its fields: a type naming itself
                self.defs[hint.__name__] = self.object(hint)
            return {"$ref": f"#/$defs/{hint.__name__}"}
        return {}

    def object(
        self, cls: Any, keys: tuple[str, ...] | None = None, title: str | None = None
    ) -> dict[str, Any]:
        """The schema of a TypedDict or dataclass (of its ``keys`` only, all required)."""
        hints = get_type_hints(cls, include_extras=True)
        names = list(hints) if keys is None else [k for k in keys if k in hints]
        defaults = _defaults(cls)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for name in names:
            described = self.field(hints[name])
            if "$ref" not in described:  # pydantic titles a field, not a reference
                described["title"] = title_of(name)
            if name in defaults:
                described["default"] = defaults[name]
            properties[name] = dict(sorted(described.items()))
            if keys is not None or _required(cls, name, hints[name], defaults):
                required.append(name)
        schema: dict[str, Any] = {}
        name_of: str = cls.__name__
        doc = cls.__doc__
        # A dataclass without a docstring is given one (its signature): pydantic leaves it out.
        if doc and not (dataclasses.is_dataclass(cls) and doc.startswith(f"{name_of}(")):
            schema["description"] = inspect.cleandoc(doc)
        schema["properties"] = properties
        if required:
            schema["required"] = required
        schema.update(title=title or name_of, type="object")
        return schema


def _defaults(cls: Any) -> dict[str, Any]:
    """A dataclass's JSON-ready field defaults, by field name."""
    if not dataclasses.is_dataclass(cls):
        return {}
    found: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        if item.default is not dataclasses.MISSING:
            try:
                json.dumps(item.default)
            except (TypeError, ValueError):
                continue  # pydantic would describe it its own way: left out, not guessed
            found[item.name] = item.default
    return found


def _required(cls: Any, name: str, hint: Any, defaults: dict[str, Any]) -> bool:
    if not _is_typed_dict(cls):
        field = {f.name: f for f in dataclasses.fields(cls)}[name]
        return name not in defaults and field.default_factory is dataclasses.MISSING
    mark = key_mark(hint)
    if mark in ("NotRequired", "Required"):
        return mark == "Required"
    return name in cls.__required_keys__


def plain_schema(hint: Any) -> dict[str, Any]:
    """The JSON Schema pydantic gives ``hint`` for a field, or ``{}`` for a type it cannot tell."""
    writer = _Writer()
    described = writer.field(hint)
    return {"$defs": writer.defs, **described} if writer.defs else described


def plain_object_schema(
    cls: Any, *, keys: tuple[str, ...] | None = None, title: str | None = None
) -> dict[str, Any]:
    """The JSON Schema of a TypedDict or dataclass (of its ``keys`` only, when given)."""
    writer = _Writer()
    described = writer.object(cls, keys, title)
    return {"$defs": writer.defs, **described} if writer.defs else described


def plain_state_schema(annotations: dict[str, Any], title: str) -> dict[str, Any]:
    """What a state update may hold: every key of ``annotations`` optional (``default: null``)."""
    writer = _Writer()
    properties: dict[str, Any] = {}
    for key, hint in annotations.items():
        described = {**writer.field(hint), "default": None}
        if "$ref" not in described:
            described["title"] = title_of(key)
        properties[key] = dict(sorted(described.items()))
    schema = {"properties": properties, "title": title, "type": "object"}
    return {"$defs": writer.defs, **schema} if writer.defs else schema
