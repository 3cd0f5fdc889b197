"""A tool's JSON Schema from a typed function, and the call of it with keyword arguments.

:func:`signature_tool` reads a function's annotations (strings too, as under
``from __future__ import annotations``) and builds the ``parameters`` schema
``@tool`` gives the tool, much as LangChain's ``convert_to_openai_tool`` does:

- ``str``, ``int``, ``float``, ``bool``, ``None``, ``Any`` (any value);
  ``list[T]`` (``list`` alone: any items), ``dict[str, T]`` (``dict`` alone: any
  values), ``Literal[...]`` of strings, integers, booleans and ``None``
  (``enum``, or ``const`` for a single value), unions (``T | None``,
  ``Optional[T]``: ``anyOf``), ``Annotated[T, "description"]``;
- TypedDict and dataclass classes: nested object schemas with their ``required``
  keys (TypedDict's totality, ``Required``/``NotRequired``; dataclass fields
  without default) and their docstring as ``description``;
- a parameter's default becomes ``default`` when it is a JSON value; a
  description comes from the docstring's Google-style ``Args:`` section, else
  from ``Annotated``.

Every object schema built here says ``"additionalProperties": false``: the
function is called as ``fn(**args)`` and a TypedDict or dataclass has no room
for other keys, so an unknown argument is refused with the other problems of the
call rather than failing inside it. The parameter annotated ``Runtime`` gets
the run's :class:`~pyctx_web.graph.runtime.Runtime` and is left out of the
schema. Arguments reach the function as its annotations say: a dataclass is
built from its object, an integral float becomes an ``int`` and an integer a
``float`` where the annotation asks.

A function whose signature cannot be a schema is refused with
:class:`~pyctx_web.errors.ArgumentTypeError` (a missing annotation, ``*args`` or
``**kwargs``, a positional-only parameter, an annotation with no JSON Schema,
one that does not resolve) or :class:`~pyctx_web.errors.ArgumentValueError` (a
second ``Runtime`` parameter, a class that contains itself).
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import typing
from collections.abc import Callable, Mapping
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, NotRequired, Required, Union, get_args, get_origin

from pyctx_web._records import record
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph._engine.channels import is_typed_dict
from pyctx_web.graph._engine.runtime import Runtime
from pyctx_web.graph._runctx.jsonschema import validate
from pyctx_web.graph._runctx.signature_text import (
    argument_descriptions,
    class_doc,
    show_type,
    signature,
    type_hints,
)

__all__ = ["KeywordCall", "is_args_form", "signature_tool"]

Converter = Callable[[Any], Any]
"""Turns a checked JSON argument into the value its annotation asks for."""

_Built = tuple[dict[str, Any], Converter | None]

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_MAPPING_ARGS = (dict, Mapping, typing.MutableMapping, Any, object)
_LIST_LIKE = (set, frozenset, tuple)
_OPTIONAL_KEY_WRAPPERS = (Required, NotRequired, getattr(typing, "ReadOnly", NotRequired))


@record(frozen=True, slots=True)
class KeywordCall:
    """Call ``function(**args)``, with the run's runtime as ``runtime`` when it takes one."""

    function: Callable[..., Any]
    """The decorated function."""
    runtime: str | None
    """The parameter that receives the run's :class:`Runtime`, if any."""
    converters: Mapping[str, Converter]
    """Per parameter, how its JSON value becomes the annotated type."""

    def __call__(self, args: Mapping[str, Any], runtime: Runtime[Any]) -> Any:
        """Call the function with ``args`` as keywords; Python fills the defaults."""
        kwargs = {
            key: convert(value) if (convert := self.converters.get(key)) else value
            for key, value in args.items()
        }
        if self.runtime is not None:
            kwargs[self.runtime] = runtime
        return self.function(**kwargs)


def is_args_form(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` is a ``fn(args)`` or ``fn(args, runtime)`` tool, ``args`` a mapping.

    ``args`` counts as a mapping when unannotated, annotated ``dict``, ``Mapping``
    or ``Any`` (bare or subscripted), or when the annotations do not resolve.
    """
    try:
        params = list(signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True  # nothing to read a schema from
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if [p.name for p in params] not in (["args"], ["args", "runtime"]) or any(
        p.kind not in positional or p.default is not p.empty for p in params
    ):
        return False
    if params[0].annotation is inspect.Parameter.empty:
        return True
    try:
        hint = typing.get_type_hints(fn, include_extras=True).get("args", Any)
    except Exception:
        return True
    hint = _unwrap_annotated(hint)[0]
    return hint in _MAPPING_ARGS or get_origin(hint) in _MAPPING_ARGS


def signature_tool(fn: Callable[..., Any], tool: str) -> tuple[dict[str, Any], KeywordCall]:
    """The ``parameters`` schema of ``fn`` and the call that feeds it; refuse what has none."""
    hints = type_hints(fn, tool)
    docs = argument_descriptions(inspect.getdoc(fn) or "")
    properties: dict[str, Any] = {}
    required: list[str] = []
    converters: dict[str, Converter] = {}
    runtime: str | None = None
    for param in signature(fn).parameters.values():
        where = f"tool {tool!r}: parameter {param.name!r}"
        hint = _parameter_hint(param, hints, tool)
        if hint is Runtime or get_origin(hint) is Runtime:
            if runtime is not None:
                raise ArgumentValueError(
                    f"{where} is a second Runtime parameter; {runtime!r} already gets it"
                )
            runtime = param.name
            continue
        schema, convert = _build(hint, f"{where} has annotation {show_type(hint)}", ())
        if param.name in docs:
            schema["description"] = docs[param.name]
        if param.default is param.empty:
            required.append(param.name)
        elif _is_json(param.default):
            schema["default"] = param.default
        properties[param.name] = schema
        if convert is not None:
            converters[param.name] = convert
    parameters = _object(properties, required, None)
    return parameters, KeywordCall(fn, runtime, converters)


def _parameter_hint(param: inspect.Parameter, hints: Mapping[str, Any], tool: str) -> Any:
    where = f"tool {tool!r}: parameter {param.name!r}"
    if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
        star = "*" if param.kind is param.VAR_POSITIONAL else "**"
        raise ArgumentTypeError(
            f"tool {tool!r}: {star}{param.name} cannot be filled from JSON arguments;"
            " a tool takes named parameters"
        )
    if param.kind is param.POSITIONAL_ONLY:
        raise ArgumentTypeError(f"{where} is positional-only; a tool is called with keywords")
    if param.name not in hints:
        raise ArgumentTypeError(
            f"{where} has no annotation; annotate it with its type"
            " (Runtime for the parameter that gets the run's Runtime)"
        )
    return hints[param.name]


def _unwrap_annotated(hint: Any) -> tuple[Any, str | None]:
    description = None
    while get_origin(hint) is Annotated:
        hint, *extras = get_args(hint)
        texts = [extra for extra in extras if isinstance(extra, str)]
        description = description or (texts[0] if texts else None)
    return hint, description


def _build(hint: Any, subject: str, seen: tuple[type, ...]) -> _Built:
    """The schema of ``hint`` and its converter; ``subject`` names it in refusals."""
    hint, description = _unwrap_annotated(hint)
    schema, convert = _build_bare(hint, subject, seen)
    if description is not None:
        schema["description"] = description
    return schema, convert


def _build_bare(hint: Any, subject: str, seen: tuple[type, ...]) -> _Built:
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return {}, None
    if isinstance(hint, (str, typing.ForwardRef)):
        raise ArgumentTypeError(f"{subject}, a forward reference that does not resolve here")
    if hint is None or hint is NoneType:
        return {"type": "null"}, None
    if isinstance(hint, type) and hint in _SCALARS:
        return {"type": _SCALARS[hint]}, _NUMBER_CONVERTERS.get(hint)
    if origin is Literal:
        return _literal(args, subject), None
    if origin is Union or origin is UnionType:
        return _union(args, subject, seen)
    if hint is list or origin is list:
        return _list(args, subject, seen)
    if hint is dict or origin is dict:
        return _dict(args, subject, seen)
    if is_typed_dict(hint):
        return _typed_dict(hint, subject, seen)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass(hint, subject, seen)
    raise ArgumentTypeError(f"{subject}, which has no JSON Schema{_advice(hint)}")


def _advice(hint: Any) -> str:
    origin, args = get_origin(hint) or hint, get_args(hint)
    if origin in _LIST_LIKE:
        items = [a for a in args if a is not Ellipsis]
        inner = show_type(items[0]) if len(set(items)) == 1 else "..."
        return f"; use list[{inner}]" if args else "; use list"
    if isinstance(hint, type) and origin is hint:
        return "; use a TypedDict or a dataclass"
    return ""


def _to_int(value: Any) -> Any:
    return int(value) if isinstance(value, float) else value


def _to_float(value: Any) -> Any:
    if type(value) is int:
        try:
            return float(value)
        except OverflowError:
            return value
    return value


_NUMBER_CONVERTERS: dict[Any, Converter] = {int: _to_int, float: _to_float}


def _literal(values: tuple[Any, ...], subject: str) -> dict[str, Any]:
    types = set()
    for value in values:
        if value is not None and type(value) not in (str, int, bool):
            raise ArgumentTypeError(
                f"{subject}, whose value {value!r} is not a JSON string, number, boolean or null"
            )
        types.add("null" if value is None else _SCALARS[type(value)])
    schema: dict[str, Any] = {"const": values[0]} if len(values) == 1 else {"enum": list(values)}
    if len(types) == 1:
        schema["type"] = types.pop()
    return schema


def _union(members: tuple[Any, ...], subject: str, seen: tuple[type, ...]) -> _Built:
    built = [
        _build(member, f"{subject} with member {show_type(member)}", seen) for member in members
    ]
    schemas = [schema for schema, _ in built]
    if all(convert is None for _, convert in built):
        return {"anyOf": schemas}, None

    def convert(value: Any) -> Any:
        for schema, member_convert in built:
            if not validate(value, schema):
                return member_convert(value) if member_convert else value
        return value

    return {"anyOf": schemas}, convert


def _list(args: tuple[Any, ...], subject: str, seen: tuple[type, ...]) -> _Built:
    if not args:
        return {"type": "array", "items": {}}, None
    items, convert = _build(args[0], f"{subject} with items {show_type(args[0])}", seen)
    if convert is None:
        return {"type": "array", "items": items}, None
    return {"type": "array", "items": items}, lambda value: [convert(item) for item in value]


def _dict(args: tuple[Any, ...], subject: str, seen: tuple[type, ...]) -> _Built:
    key, value_hint = args or (str, Any)
    if _unwrap_annotated(key)[0] is not str:
        raise ArgumentTypeError(
            f"{subject}, whose keys are {show_type(key)}; JSON object keys are strings:"
            f" use dict[str, {show_type(value_hint)}]"
        )
    values, convert = _build(value_hint, f"{subject} with values {show_type(value_hint)}", seen)
    schema = {"type": "object", "additionalProperties": values or True}
    if convert is None:
        return schema, None
    return schema, lambda value: {k: convert(v) for k, v in value.items()}


def _enter(cls: type, subject: str, seen: tuple[type, ...]) -> tuple[type, ...]:
    if cls in seen:
        raise ArgumentValueError(
            f"{subject}: {cls.__qualname__} contains itself, which a tool's schema cannot express"
        )
    return (*seen, cls)


def _class_hints(cls: type, subject: str) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception as error:
        raise ArgumentTypeError(
            f"{subject}, whose field annotations do not resolve: {error}"
        ) from error


def _typed_dict(cls: type, subject: str, seen: tuple[type, ...]) -> _Built:
    inner = _enter(cls, subject, seen)
    properties: dict[str, Any] = {}
    required: list[str] = []
    converters: dict[str, Converter] = {}
    for key, hint in _class_hints(cls, subject).items():
        wrapper = get_origin(hint)
        while get_origin(hint) in _OPTIONAL_KEY_WRAPPERS:
            hint = get_args(hint)[0]
        wrapped = wrapper in (Required, NotRequired)
        if wrapper is Required or (not wrapped and key in getattr(cls, "__required_keys__", ())):
            required.append(key)
        field_subject = f"{subject} with field {key!r} of {show_type(hint)}"
        properties[key], convert = _build(hint, field_subject, inner)
        if convert is not None:
            converters[key] = convert
    schema = _object(properties, required, class_doc(cls))
    if not converters:
        return schema, None
    return schema, lambda value: {
        k: converters[k](v) if k in converters else v for k, v in value.items()
    }


def _dataclass(cls: type, subject: str, seen: tuple[type, ...]) -> _Built:
    inner = _enter(cls, subject, seen)
    hints = _class_hints(cls, subject)
    properties: dict[str, Any] = {}
    required: list[str] = []
    converters: dict[str, Converter] = {}
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        hint = hints.get(field.name, Any)
        field_subject = f"{subject} with field {field.name!r} of {show_type(hint)}"
        properties[field.name], convert = _build(hint, field_subject, inner)
        if field.default is not dataclasses.MISSING:
            if _is_json(field.default):
                properties[field.name]["default"] = field.default
        elif field.default_factory is dataclasses.MISSING:
            required.append(field.name)
        if convert is not None:
            converters[field.name] = convert
    schema = _object(properties, required, class_doc(cls))

    def build(value: Mapping[str, Any]) -> Any:
        return cls(**{k: converters[k](v) if k in converters else v for k, v in value.items()})

    return schema, build


def _object(properties: dict[str, Any], required: list[str], doc: str | None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    if doc:
        schema["description"] = doc
    return schema


def _is_json(value: Any) -> bool:
    """Whether ``value`` is made only of JSON's values, so it can be a schema's ``default``."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_is_json(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False
