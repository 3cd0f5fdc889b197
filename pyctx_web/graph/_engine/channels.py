"""The state schema of a graph: its keys, their reducers, and how updates apply.

A schema is a ``TypedDict`` or a dataclass. A key annotated
``Annotated[T, reducer]`` combines writes with ``reducer(current, new)``
(``operator.add`` appends lists); any other key keeps the last value written
and accepts one write per step. A key whose annotation holds a class (or an
instance) with ``__pyctx_channel__`` (:mod:`pyctx_web.graph.channels`) is
``"ephemeral"`` (a step that does not write it clears it) or ``"untracked"``
(never checkpointed: see :attr:`StateSchema.untracked`).
"""

from __future__ import annotations

import dataclasses
from collections import abc
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, Final, get_args, get_origin, get_type_hints, is_typeddict

from pyctx_web.errors import ArgumentTypeError, PyctxError
from pyctx_web.graph._engine.signatures import signature
from pyctx_web.graph.constants import START
from pyctx_web.graph.errors import InvalidGraphError, InvalidUpdateError

__all__ = ["Reducer", "StateSchema", "is_state_type", "is_typed_dict", "unqualified"]

Reducer = Callable[[Any, Any], Any]
"""``reducer(current, update) -> new value``."""

_MISSING: Final = object()
_EMPTY_STARTS: Final[tuple[type, ...]] = (list, dict, tuple, set, frozenset, str, int, float)
"""Types whose empty value starts a reduced key that has no value yet."""
_ABSTRACT_STARTS: Final[dict[Any, type]] = {
    abc.Sequence: list,
    abc.MutableSequence: list,
    abc.Set: set,
    abc.MutableSet: set,
    abc.Mapping: dict,
    abc.MutableMapping: dict,
}
"""The concrete type an abstract collection annotation starts empty as, as in LangGraph."""


_QUALIFIERS: Final = frozenset({"Required", "NotRequired", "ReadOnly"})
"""TypedDict key qualifiers (``typing``'s or ``typing_extensions``') a reducer may sit in."""


def unqualified(hint: Any) -> Any:
    """``hint`` without its ``Required[...]``, ``NotRequired[...]`` or ``ReadOnly[...]`` wrappers.

    ``messages: Required[Annotated[list, add_messages]]`` declares a reducer as
    surely as the bare ``Annotated`` does. The qualifiers are told by name so
    that ``typing_extensions``' own forms (older Pythons) count too.
    """
    while getattr(get_origin(hint), "_name", None) in _QUALIFIERS and get_args(hint):
        hint = get_args(hint)[0]
    return hint


def is_typed_dict(state_type: object) -> bool:
    """Whether ``state_type`` is a TypedDict of ``typing`` or of ``typing_extensions``.

    ``typing_extensions`` makes TypedDicts of its own on older Pythons, which
    ``typing.is_typeddict`` does not recognise: they are dict subclasses with
    ``__required_keys__``.
    """
    return isinstance(state_type, type) and (
        is_typeddict(state_type)
        or (issubclass(state_type, dict) and hasattr(state_type, "__required_keys__"))
    )


def _is_model(state_type: object) -> bool:
    """Whether ``state_type`` is a pydantic-style model class (``model_fields``, ``model_dump``),
    or a ``pydantic.v1`` model (``__fields__``, ``parse_obj``), which LangGraph takes too."""
    if not isinstance(state_type, type):
        return False
    if isinstance(getattr(state_type, "model_fields", None), Mapping):
        return callable(getattr(state_type, "model_dump", None))
    return isinstance(getattr(state_type, "__fields__", None), Mapping) and callable(
        getattr(state_type, "parse_obj", None)
    )


def is_state_type(cls: object) -> bool:
    """Whether ``cls`` can describe a state: a TypedDict, a dataclass or a pydantic model."""
    return (
        is_typed_dict(cls)
        or _is_model(cls)
        or (isinstance(cls, type) and dataclasses.is_dataclass(cls))
    )


def _takes_two(fn: Callable[..., Any]) -> bool:
    try:
        params = signature(fn).parameters.values()
    except (TypeError, ValueError):
        # Builtins such as operator.add may have no signature: accept them.
        return True
    positional = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in positional)


def _writer(node: str) -> str:
    return "the input" if node == START else f"the update of node {node!r}"


def _reducer_error(exc: Exception, reducer: Reducer, node: str, key: str) -> InvalidUpdateError:
    """The error a failed ``reducer`` call raises, naming the key and the node."""
    name = getattr(reducer, "__qualname__", None) or repr(reducer)
    return InvalidUpdateError(
        f"reducer {name} of state key {key!r} failed on {_writer(node)}: "
        f"{type(exc).__name__}: {exc}",
        node=node,
        key=key,
    )


class StateSchema:
    """Keys, reducers and conversions of a ``TypedDict`` or dataclass state type."""

    __slots__ = (
        "annotations",
        "ephemeral",
        "input_keys",
        "is_dataclass",
        "is_model",
        "output_keys",
        "own_keys",
        "reducers",
        "state_type",
        "untracked",
    )

    state_type: type
    annotations: dict[str, Any]
    reducers: dict[str, Reducer | None]
    is_dataclass: bool
    """Nodes receive an instance of the state type (a dataclass or a pydantic model)."""
    is_model: bool
    """The state type is a pydantic-style model."""
    input_keys: tuple[str, ...] | None
    """The keys a run's input may set (``input_schema``); ``None`` for every key."""
    output_keys: tuple[str, ...] | None
    """The keys ``invoke`` returns (``output_schema``); ``None`` for the state type's."""
    own_keys: frozenset[str] | None
    """The state type's own keys once other schemas added channels; ``None`` until then."""
    ephemeral: frozenset[str]
    """Keys cleared by a step that does not write them (``EphemeralValue``)."""
    untracked: frozenset[str]
    """Keys whose values live for the run only, never in a checkpoint (``UntrackedValue``)."""

    def __init__(self, state_type: type) -> None:
        self.is_model = _is_model(state_type)
        if is_typed_dict(state_type):
            self.is_dataclass = False
        elif self.is_model or (
            isinstance(state_type, type) and dataclasses.is_dataclass(state_type)
        ):
            self.is_dataclass = True
        else:
            raise ArgumentTypeError(
                "StateGraph() state type must be a TypedDict, a dataclass or a pydantic model, "
                f"not {state_type!r}"
            )
        self.state_type = state_type
        try:
            hints = get_type_hints(state_type, include_extras=True)
        except NameError as exc:
            raise InvalidGraphError(
                f"cannot resolve the annotations of state type {state_type.__qualname__!r}: {exc}"
            ) from exc
        if self.is_dataclass:
            hints = {name: hints[name] for name in self._field_names(state_type)}
        if not hints:
            raise InvalidGraphError(f"state type {state_type.__qualname__!r} declares no keys")
        self.annotations = hints
        self.reducers = {key: self._reducer_of(key, hint) for key, hint in hints.items()}
        self.input_keys = self.output_keys = self.own_keys = None
        self.ephemeral = self.untracked = frozenset()
        self._add_kinds(hints)

    def _add_kinds(self, hints: Mapping[str, Any]) -> None:
        """Note the keys of ``hints`` that are ephemeral or untracked."""
        for key, hint in hints.items():
            hint = unqualified(hint)
            if get_origin(hint) is not Annotated:
                continue
            kinds = {getattr(meta, "__pyctx_channel__", None) for meta in hint.__metadata__}
            if "ephemeral" in kinds:
                self.ephemeral |= {key}
            if "untracked" in kinds:
                self.untracked |= {key}

    def extend(self, other: StateSchema) -> None:
        """Add the keys of ``other`` that this schema lacks (an input, output or node schema)."""
        for key, hint in other.annotations.items():
            if key not in self.annotations:
                if self.own_keys is None:
                    self.own_keys = frozenset(self.annotations)
                self.annotations[key] = hint
                self.reducers[key] = other.reducers[key]
                self._add_kinds({key: hint})

    def _field_names(self, state_type: type) -> list[str]:
        if self.is_model:
            fields = getattr(state_type, "model_fields", None)  # pydantic.v1: __fields__
            return list(state_type.__fields__ if fields is None else fields)  # type: ignore[attr-defined]
        return [f.name for f in dataclasses.fields(state_type)]

    @staticmethod
    def _reducer_of(key: str, hint: Any) -> Reducer | None:
        hint = unqualified(hint)
        if get_origin(hint) is not Annotated:
            return None
        for meta in reversed(hint.__metadata__):
            if callable(meta) and not isinstance(meta, type):
                if not _takes_two(meta):
                    raise InvalidGraphError(
                        f"reducer of state key {key!r} must take two arguments (current, update), "
                        f"got {meta!r}"
                    )
                return meta  # type: ignore[no-any-return]
        return None

    @property
    def keys(self) -> tuple[str, ...]:
        """The state keys in declaration order."""
        return tuple(self.annotations)

    def _empty_start(self, key: str) -> Any:
        base = unqualified(get_args(unqualified(self.annotations[key]))[0])
        origin = get_origin(base) or base
        origin = _ABSTRACT_STARTS.get(origin, origin)  # Sequence[...] starts as a list
        if isinstance(origin, type) and issubclass(origin, _EMPTY_STARTS):
            for kind in _EMPTY_STARTS:
                if issubclass(origin, kind):
                    return kind()
        return _MISSING

    def check_update(self, node: str, update: Any) -> list[tuple[str, Any]]:
        """Return the ``(key, value)`` writes of a node's update; raise if a key is unknown."""
        if update is None:
            return []
        if node == START and self.input_keys is not None and isinstance(update, Mapping):
            # As in LangGraph, input keys outside the input schema are ignored.
            update = {k: v for k, v in update.items() if k in self.input_keys}
        if self.is_dataclass and isinstance(update, self.state_type):
            return [(name, getattr(update, name)) for name in self.annotations]
        # A plain dict, what nodes return, is told apart without the Mapping ABC's check.
        if type(update) is not dict and not isinstance(update, Mapping):
            who = "the input" if node == START else f"node {node!r}"
            raise InvalidUpdateError(
                f"{who} must give a dict of state updates, a Command or None, "
                f"not {type(update).__qualname__!r}",
                node=node,
            )
        reducers = self.reducers
        for key in update:
            if key not in reducers:
                who = "the input" if node == START else f"node {node!r}"
                raise InvalidUpdateError(
                    f"{who} wrote state key {key!r}, which is not in "
                    f"{self.state_type.__qualname__} (keys: {', '.join(self.keys)})",
                    node=node,
                    key=str(key),
                )
        return list(update.items())

    def apply(
        self, values: Mapping[str, Any], writes: Iterable[tuple[str, str, Any]]
    ) -> dict[str, Any]:
        """Return new values: ``values`` with ``(node, key, value)`` writes applied in order
        (one step's: an ephemeral key they do not write is cleared).

        A key without a reducer written by more than one write, and a reducer
        that fails, raise :class:`InvalidUpdateError` naming the key and the node.
        """
        new = dict(values)
        plain_writers: dict[str, str] = {}
        written: set[str] | None = set() if self.ephemeral else None
        for node, key, value in writes:
            if written is not None:
                written.add(key)
            reducer = self.reducers[key]
            if reducer is None:
                if key in plain_writers:
                    # LangGraph's wording; the nodes are on the error.
                    raise InvalidUpdateError(
                        f"At key {key!r}: Can receive only one value per step. "
                        f"Use an Annotated key to handle multiple values.",
                        node=node,
                        key=key,
                    )
                plain_writers[key] = node
                new[key] = value
                continue
            current = new.get(key, _MISSING)
            if current is _MISSING:
                current = self._empty_start(key)
            if current is _MISSING:
                new[key] = value
                continue
            try:
                new[key] = reducer(current, value)
            except PyctxError as exc:
                # pyctx_web's own reducers (add_messages) raise LangGraph's errors, which
                # programs catch as LangGraph documents them: they pass, with a note.
                exc.add_note(f"raised by the reducer of state key {key!r} on {_writer(node)}")
                raise
            except Exception as exc:
                raise _reducer_error(exc, reducer, node, key) from exc
        if written is not None:
            # As LangGraph's EphemeralValue: a key no write of this step touched is cleared.
            for key in self.ephemeral - written:
                new.pop(key, None)
        return new

    def with_defaults(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` plus the defaults of keys that have no value yet.

        A reduced key of a type with an empty value (``Annotated[list, add]``)
        starts from it, as LangGraph's reducer channels do. A dataclass field's
        default is not a value: nodes see it in the state object they receive.
        """
        new = dict(values)
        for key, reducer in self.reducers.items():
            if reducer is not None and key not in new:
                empty = self._empty_start(key)
                if empty is not _MISSING:
                    new[key] = empty
        return new

    def to_state(self, values: Mapping[str, Any], node: str) -> Any:
        """The state object a node receives: a dict copy, a dataclass or a model instance.

        Only the state type's keys: channels other schemas added are private to the
        nodes that annotate those schemas.
        """
        if self.own_keys is not None:
            values = {k: v for k, v in values.items() if k in self.own_keys}
        if not self.is_dataclass:
            return dict(values)
        if self.is_model:
            # A model validates its input and raises its own error, as in LangGraph.
            return self.state_type(**values)
        try:
            return self.state_type(**values)
        except TypeError as exc:
            raise InvalidUpdateError(
                f"cannot build state {self.state_type.__qualname__} for node {node!r}: {exc} "
                f"(give the field a default or pass it in the input)",
                node=node,
            ) from exc

    def output(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The values in declaration order, as snapshots and ``"values"`` show them.

        As LangGraph's, they show every channel of the graph: keys a node's input
        schema or the graph's input or output schema added too; not the keys of a
        thread's values that the graph has no channel for (written by another graph,
        or another version of it), which the thread's checkpoints keep.
        """
        return {key: values[key] for key in self.annotations if key in values}

    def own_values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The state type's values in declaration order: what a node of the state type
        reads (not the keys the graph has no channel for, as :meth:`output`)."""
        own = self.own_keys
        return {
            key: values[key]
            for key in self.annotations
            if key in values and (own is None or key in own)
        }

    def result(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The values ``invoke`` returns: the output schema's, else the state type's."""
        if self.output_keys is None:
            return self.own_values(values)
        return {key: values[key] for key in self.output_keys if key in values}
