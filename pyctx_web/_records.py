"""Records: :func:`record`, a class decorator that defines what ``@dataclass`` does, cheaply.

pyctx_web's own record classes (a run's log entries, the engine's frames and
specs, a tool, ...) are declared as dataclasses are, with annotations, defaults
and :func:`dataclasses.field`, and get the same ``__init__``, ``repr``,
equality, hash, frozenness, ``__slots__`` and ``__match_args__``. They are not
dataclasses: :func:`dataclasses.fields`, ``replace`` and ``asdict`` do not take
them. The types LangGraph defines as dataclasses (``Send``, ``Command``,
``Interrupt``, ``StateSnapshot``, ``Runtime``...) stay dataclasses: they are made
with :func:`lazy_dataclass`, a record that is also a dataclass
(``__dataclass_fields__`` and ``__dataclass_params__`` as ``@dataclass`` sets them, so
:func:`dataclasses.fields`, ``replace``, ``asdict`` and ``@dataclass`` subclasses take
it), its methods compiled when first used as a record's are.

Why: ``@dataclass`` writes the source of each generated method, compiles it and,
for ``slots=True``, builds the class a second time; in Pyodide that is 1 to 3 ms a
class, which a page importing pyctx_web without a memory snapshot pays for every
record it imports. :func:`record` compiles ``__init__`` only (it runs for every
record made, so it stays a plain function of assignments) and shares one
``__repr__``, ``__eq__``, ``__hash__`` and frozen ``__setattr__`` between all records.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from collections.abc import Callable
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, TypeVar, dataclass_transform, overload

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError

__all__ = ["lazy_dataclass", "record"]

T = TypeVar("T")

_MISSING: Final[Any] = dataclasses.MISSING


class _Factory:
    """The default an ``__init__`` parameter shows for a field with a ``default_factory``."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY: Final = _Factory()


class _Field:
    """One field of a record, as its declaration gives it."""

    __slots__ = ("annotation", "compare", "default", "factory", "init", "name", "repr")

    def __init__(self, name: str, annotation: Any, declared: Any) -> None:
        self.name, self.annotation = name, annotation
        self.default, self.factory = declared, _MISSING
        self.init = self.repr = self.compare = True
        if isinstance(declared, dataclasses.Field):
            self.default, self.factory = declared.default, declared.default_factory
            self.init, self.repr = declared.init, declared.repr
            self.compare = bool(declared.compare)
        elif (
            declared is not _MISSING
            and type(declared).__hash__ is None
            and type(declared) is not MappingProxyType
        ):
            # As dataclasses refuse them: one list (dict, set) would be shared by every record.
            # A read-only mapping view is shared safely (Python 3.11 gives it no __hash__).
            raise ArgumentValueError(
                f"mutable default {type(declared)} for field {name} is not allowed: "
                "use default_factory"
            )


def _is_class_var(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))
    return getattr(annotation, "__origin__", annotation) is getattr(
        sys.modules.get("typing"), "ClassVar", None
    )


def _own_annotations(cls: type) -> dict[str, Any]:
    own = cls.__dict__.get("__annotations__")  # noqa: RUF063 (annotationlib costs an import)
    if own is None and sys.version_info >= (3, 14):
        # A module without ``from __future__ import annotations``: 3.14 defers them. As
        # @dataclass, they are evaluated (a name not defined yet gives a ForwardRef):
        # the STRING format would unparse them, importing _ast_unparse for the first.
        import annotationlib

        own = annotationlib.get_annotations(cls, format=annotationlib.Format.FORWARDREF)
    return dict(own or {})


def _fields(cls: type) -> list[_Field]:
    """The fields of ``cls``: those of its record bases first, then its own, in order."""
    fields: dict[str, _Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for inherited in base.__dict__.get("__record_fields__", ()):
            fields[inherited.name] = inherited
    for name, annotation in _own_annotations(cls).items():
        if not _is_class_var(annotation):
            fields[name] = _Field(name, annotation, cls.__dict__.get(name, _MISSING))
    return list(fields.values())


def _init_source(cls: type, fields: list[_Field], frozen: bool) -> tuple[str, dict[str, Any]]:
    """The source of ``__init__``'s body and parameters, and the values it takes."""
    params, body = ["self"], []
    values: dict[str, Any] = {"__object": object}
    for index, field in enumerate(fields):
        value = field.name
        if field.factory is not _MISSING:
            values[f"__factory{index}"] = field.factory
            if field.init:
                values[f"__default{index}"] = _FACTORY
                params.append(f"{field.name}=__default{index}")
                value = f"__factory{index}() if {field.name} is __default{index} else {field.name}"
            else:
                value = f"__factory{index}()"
        elif field.init and field.default is not _MISSING:
            values[f"__default{index}"] = field.default
            params.append(f"{field.name}=__default{index}")
        elif field.init:
            params.append(field.name)
        elif field.default is not _MISSING:
            values[f"__default{index}"] = field.default
            value = f"__default{index}"
        else:
            continue  # init=False and no default: set by __post_init__ or later
        if frozen:
            body.append(f"__object.__setattr__(self, {field.name!r}, {value})")
        else:
            body.append(f"self.{field.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    return f"def __init__({', '.join(params)}):\n  " + ("\n  ".join(body) or "pass"), values


def _eq_source(names: tuple[str, ...]) -> str:
    mine = "".join(f"self.{name}," for name in names)
    theirs = "".join(f"other.{name}," for name in names)
    return (
        "def __eq__(self, other):\n"
        "  if self is other:\n   return True\n"
        f"  if other.__class__ is self.__class__:\n   return ({mine})==({theirs})\n"
        "  return NotImplemented"
    )


def _compiled(cls: type, name: str) -> Callable[..., Any]:
    """``cls``'s method ``name`` (``__init__``, ``__eq__`` or ``__hash__``), compiled now."""
    fields: tuple[_Field, ...] = cls.__record_fields__  # type: ignore[attr-defined]
    compared = tuple(f.name for f in fields if f.compare)
    values: dict[str, Any] = {}
    if name == "__init__":
        source, values = _init_source(cls, list(fields), cls.__record_frozen__)  # type: ignore[attr-defined]
    elif name == "__eq__":
        source = _eq_source(compared)
    else:
        source = f"def __hash__(self):\n  return hash(({''.join(f'self.{n},' for n in compared)}))"
    source = f"def __make__({', '.join(values)}):\n " + source.replace("\n", "\n ")
    namespace: dict[str, Any] = {}
    module = sys.modules.get(cls.__module__)
    exec(source + f"\n return {name}\n", vars(module) if module is not None else {}, namespace)
    method: Callable[..., Any] = namespace["__make__"](**values)
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    if name == "__init__":
        method.__annotations__ = {f.name: f.annotation for f in fields if f.init} | {"return": None}
    return method


class _Lazy:
    """A record's ``__init__``, ``__eq__`` or ``__hash__`` until it is first looked up (by
    the first record made, compared or hashed, or by ``inspect.signature``): then it is
    compiled, as a dataclass's, and takes this object's place in the class.

    Compiling is most of what defining a dataclass costs, and many records are first
    made long after their module is imported, if ever; most are never hashed.
    """

    __slots__ = ("name", "record")

    def __init__(self, record: type, name: str) -> None:
        self.record, self.name = record, name

    def __get__(self, instance: object, owner: type) -> Any:
        # The record class, not ``owner``: inspect looks a method up on a class as one
        # bound to it, as __get__(cls, type(cls)).
        method = _compiled(self.record, self.name)
        if self.record.__dict__.get(self.name) is self:
            setattr(self.record, self.name, method)
        return method if instance is None else method.__get__(instance, owner)


_repr_running: set[tuple[int, int]] = set()


def _repr(self: Any) -> str:
    # As dataclasses' repr: a record that contains itself shows "..." there.
    key = (id(self), threading.get_ident())
    if key in _repr_running:
        return "..."
    _repr_running.add(key)
    try:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self).__record_repr__)
    finally:
        _repr_running.discard(key)
    return f"{type(self).__qualname__}({shown})"


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, field.name) for field in type(self).__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    # Pickling and copying a frozen record with __slots__ sets its fields past __setattr__.
    for field, value in zip(type(self).__record_fields__, state, strict=True):
        object.__setattr__(self, field.name, value)


def _set_new(cls: type, name: str, value: Any) -> None:
    if name not in cls.__dict__:
        setattr(cls, name, value)


def _methods(cls: type, fields: list[_Field], *, frozen: bool, eq: bool) -> None:
    """Give ``cls`` the methods and attributes a dataclass declared the same way has."""
    cls.__record_fields__ = tuple(fields)  # type: ignore[attr-defined]
    cls.__record_frozen__ = frozen  # type: ignore[attr-defined]
    cls.__record_repr__ = tuple(f.name for f in fields if f.repr)  # type: ignore[attr-defined]
    _set_new(cls, "__init__", _Lazy(cls, "__init__"))
    _set_new(cls, "__repr__", _repr)
    _set_new(cls, "__match_args__", tuple(f.name for f in fields if f.init))
    explicit_hash = "__hash__" in cls.__dict__ and not (
        cls.__dict__["__hash__"] is None and "__eq__" in cls.__dict__
    )
    if eq:
        _set_new(cls, "__eq__", _Lazy(cls, "__eq__"))
        if not explicit_hash:
            # Equal records hash alike: frozen ones by their fields, mutable ones not at all.
            cls.__hash__ = _Lazy(cls, "__hash__") if frozen else None  # type: ignore[assignment]
    if frozen:
        for name, method in (("__setattr__", _frozen_setattr), ("__delattr__", _frozen_delattr)):
            if name in cls.__dict__:
                raise ArgumentTypeError(
                    f"Cannot overwrite attribute {name} in class {cls.__name__}"
                )
            setattr(cls, name, method)


def _class_cell_fixed(value: Any, old: type, new: type) -> None:
    """Point the ``__class__`` cell of a method (for zero-argument ``super()``) at ``new``."""
    for function in (value, getattr(value, "__func__", None), getattr(value, "fget", None)):
        closure = getattr(getattr(function, "__code__", None), "co_freevars", ())
        if "__class__" in closure:
            cell = getattr(function, "__closure__", ())[closure.index("__class__")]
            if cell.cell_contents is old:
                cell.cell_contents = new


def _with_slots(cls: type, fields: list[_Field]) -> type:
    """``cls`` made again with a slot for each of its own fields (a class's slots are fixed
    when it is made); the defaults stay with ``__init__``."""
    inherited = {name for base in cls.__mro__[1:] for name in base.__dict__.get("__slots__", ())}
    namespace = dict(cls.__dict__)
    for name in ("__dict__", "__weakref__", *(f.name for f in fields)):
        namespace.pop(name, None)
    namespace["__slots__"] = tuple(f.name for f in fields if f.name not in inherited)
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    for value in namespace.values():
        _class_cell_fixed(value, cls, made)
    return made


def _build(cls: type[T], *, frozen: bool, eq: bool, slots: bool) -> type[T]:
    fields = _fields(cls)
    for field in fields:
        if not slots and field.name in cls.__dict__:
            if field.default is _MISSING:
                delattr(cls, field.name)  # a field(default_factory=...) leaves no class value
            else:
                setattr(cls, field.name, field.default)
    made: type[T] = _with_slots(cls, fields) if slots else cls
    _methods(made, fields, frozen=frozen, eq=eq)
    if frozen and slots:
        _set_new(made, "__getstate__", _getstate)
        _set_new(made, "__setstate__", _setstate)
    return made


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(
    *, frozen: bool = False, eq: bool = True, slots: bool = False
) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(
    cls: type[T] | None = None, /, *, frozen: bool = False, eq: bool = True, slots: bool = False
) -> type[T] | Callable[[type[T]], type[T]]:
    """Make ``cls`` a record: ``@record`` or ``@record(frozen=..., eq=..., slots=...)``, each
    option as :func:`dataclasses.dataclass` takes it."""

    def wrap(target: type[T]) -> type[T]:
        return _build(target, frozen=frozen, eq=eq, slots=slots)

    return wrap if cls is None else wrap(cls)


def _dataclass_fields(cls: type) -> dict[str, dataclasses.Field[Any]]:
    """The ``__dataclass_fields__`` that ``@dataclass`` would give ``cls`` (read before
    :func:`_build` changes the class): the bases' fields, then its own, each made by
    dataclasses' own per-field step (no code is compiled there)."""
    made: dict[str, dataclasses.Field[Any]] = {}
    for base in reversed(cls.__mro__[1:]):
        made.update(base.__dict__.get("__dataclass_fields__", {}))
    make_field = dataclasses._get_field  # type: ignore[attr-defined]
    for name, annotation in _own_annotations(cls).items():
        made[name] = make_field(cls, name, annotation, False)
    return made


def _params(*, eq: bool, frozen: bool, slots: bool) -> Any:
    """The ``__dataclass_params__`` of ``@dataclass(eq=eq, frozen=frozen, slots=slots)``."""
    made: Any = dataclasses._DataclassParams  # type: ignore[attr-defined]
    # match_args, kw_only, slots and weakref_slot came in 3.12.
    later = (True, False, slots, False) if sys.version_info >= (3, 12) else ()
    return made(True, True, eq, False, False, frozen, *later)


def _replace(self: Any, /, **changes: Any) -> Any:
    # copy.replace() (3.13) calls it, as it calls a dataclass's.
    return dataclasses.replace(self, **changes)


def _lazy_dataclass(
    cls: type[T] | None = None, /, *, frozen: bool = False, eq: bool = True, slots: bool = False
) -> type[T] | Callable[[type[T]], type[T]]:
    def wrap(target: type[T]) -> type[T]:
        fields = _dataclass_fields(target)
        made = _build(target, frozen=frozen, eq=eq, slots=slots)
        made.__dataclass_fields__ = fields  # type: ignore[attr-defined]
        made.__dataclass_params__ = _params(eq=eq, frozen=frozen, slots=slots)  # type: ignore[attr-defined]
        if sys.version_info >= (3, 13):
            _set_new(made, "__replace__", _replace)
        return made

    return wrap if cls is None else wrap(cls)


if TYPE_CHECKING:
    # Type checkers see what it makes: dataclasses.
    from dataclasses import dataclass as lazy_dataclass
else:
    lazy_dataclass = _lazy_dataclass
    lazy_dataclass.__name__ = lazy_dataclass.__qualname__ = "lazy_dataclass"
    lazy_dataclass.__doc__ = """Make ``cls`` a dataclass whose methods are compiled when first
    used: ``@lazy_dataclass`` or ``@lazy_dataclass(frozen=..., eq=..., slots=...)``, each
    option as :func:`dataclasses.dataclass` takes it (the others as its defaults). It is a
    record (see :func:`record`) with the fields and parameters ``@dataclass`` would set."""
