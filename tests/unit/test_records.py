"""pyctx_web._records.record: the same classes as ``@dataclass`` makes, declared the same way."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Generic, TypeVar

import pytest

from pyctx_web._records import lazy_dataclass, record

T = TypeVar("T")

OPTIONS: list[dict[str, bool]] = [
    {},
    {"frozen": True},
    {"slots": True},
    {"frozen": True, "slots": True},
    {"eq": False},
    {"eq": False, "slots": True},
]


def _declared(decorator: Callable[[type[Any]], type[Any]]) -> type[Any]:
    @decorator
    class Point(Generic[T]):
        x: int
        tags: list[str] = field(default_factory=list)
        label: str = "p"
        weight: float = field(default=1.0, repr=False, compare=False)
        kind: ClassVar[str] = "point"

        def size(self) -> int:
            return self.x + len(self.tags)

    return Point


def _pair(options: dict[str, Any]) -> tuple[type[Any], type[Any]]:
    """The same declaration made a dataclass and a record with ``options``."""
    return _declared(dataclass(**options)), _declared(record(**options))


def _outcome(action: Callable[[], Any]) -> Any:
    try:
        return action()
    except Exception as error:
        return type(error), str(error)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_a_record_behaves_as_the_dataclass_declared_alike(options: dict[str, bool]) -> None:
    """init, repr, equality, hash, match args, signature, slots, frozenness and copies agree."""
    dc, rec = _pair(options)
    assert str(inspect.signature(rec)) == str(inspect.signature(dc))
    a, b = dc(1, ["t"]), rec(1, ["t"])
    assert repr(b) == repr(a)
    assert repr(b).endswith("Point(x=1, tags=['t'], label='p')")
    assert (b == rec(1, ["t"], weight=5.0)) is (a == dc(1, ["t"], weight=5.0))
    assert (b == rec(2)) is (a == dc(2)) is False
    assert (rec.__hash__ is None) is (dc.__hash__ is None)
    if options.get("frozen"):
        assert hash(rec(1, ("t",))) == hash(dc(1, ("t",)))
    assert rec.__match_args__ == dc.__match_args__
    assert hasattr(b, "__dict__") is hasattr(a, "__dict__")
    assert rec.kind == "point"
    assert b.size() == a.size()
    for clone in (copy.copy(b), copy.deepcopy(b)):
        assert repr(clone) == repr(b)
    assert _outcome(lambda: setattr(b, "x", 5)) == _outcome(lambda: setattr(a, "x", 5))
    assert _outcome(lambda: delattr(b, "label")) == _outcome(lambda: delattr(a, "label"))


def _field_view(cls: type[Any]) -> list[tuple[Any, ...]]:
    return [
        (f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.compare, f.kw_only)
        for f in dataclasses.fields(cls)
    ]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_a_lazy_dataclass_is_the_dataclass_declared_alike(options: dict[str, bool]) -> None:
    """A lazy dataclass has @dataclass's fields, params, replace, asdict, methods and subclasses."""
    dc, lazy = _declared(dataclass(**options)), _declared(lazy_dataclass(**options))
    assert [dataclasses.is_dataclass(made) for made in (dc, lazy)] == [True, True]
    assert _field_view(lazy) == _field_view(dc)
    assert repr(lazy.__dataclass_params__) == repr(dc.__dataclass_params__)
    a, b = dc(1, ["t"]), lazy(1, ["t"])
    assert repr(b).split(".")[-1] == repr(a).split(".")[-1]
    assert dataclasses.asdict(b) == dataclasses.asdict(a)
    assert (
        repr(dataclasses.replace(b, x=2)).split(".")[-1]
        == repr(dataclasses.replace(a, x=2)).split(".")[-1]
    )
    assert (lazy.__hash__ is None) is (dc.__hash__ is None)
    assert str(inspect.signature(lazy)) == str(inspect.signature(dc))

    @dataclass(**options)
    class Sub(lazy):  # type: ignore[valid-type,misc]
        extra: int = 0

    assert repr(Sub(1, extra=3)).endswith("Sub(x=1, tags=[], label='p', extra=3)")
    assert [f.name for f in dataclasses.fields(Sub)] == ["x", "tags", "label", "weight", "extra"]


def test_a_record_is_not_a_dataclass() -> None:
    """dataclasses.fields and replace do not take a record (its class says what it is)."""
    _, rec = _pair({"frozen": True})
    assert not dataclasses.is_dataclass(rec)


def test_signature_before_the_first_record_is_made() -> None:
    """inspect.signature shows the fields of a record class no record of which was made yet."""

    @record(frozen=True, slots=True)
    class Call:
        name: str
        args: dict[str, Any] = field(default_factory=dict)

    assert (
        str(inspect.signature(Call)) == "(name: 'str', args: 'dict[str, Any]' = <factory>) -> None"
    )
    assert Call("f") == Call("f", {})


def test_post_init_and_fields_outside_init() -> None:
    """__post_init__ runs after the fields are set; a field(init=False) is not a parameter."""

    @record
    class Tree:
        items: list[int]
        total: int = field(init=False)

        def __post_init__(self) -> None:
            self.total = sum(self.items)

    tree = Tree([1, 2])
    assert tree.total == 3
    assert (
        repr(tree) == "test_post_init_and_fields_outside_init.<locals>.Tree(items=[1, 2], total=3)"
    )


def test_zero_argument_super_in_a_slotted_record() -> None:
    """A method using super() works in a record made again with __slots__."""

    @record(slots=True)
    class Named:
        name: str

        def describe(self) -> str:
            return "named " + super().__repr__().split(" ")[0]

    assert Named("n").describe().startswith("named <")


def test_mutable_default_is_refused() -> None:
    """A list as a default is refused, as dataclasses refuse it."""
    with pytest.raises(
        ValueError,
        match=(
            r"^mutable default <class 'list'> for field items is not allowed: "
            r"use default_factory$"
        ),
    ):

        @record
        class Holder:
            items: list[int] = []  # noqa: RUF012


def test_a_read_only_mapping_view_is_a_shared_default() -> None:
    """An empty ``MappingProxyType`` is taken as a default on every Python, 3.11 included."""
    nothing: Mapping[str, int] = MappingProxyType({})

    @record
    class Holder:
        counts: Mapping[str, int] = nothing

    assert Holder().counts is nothing


def test_a_record_that_contains_itself() -> None:
    """Its repr shows ``...`` where the record is met again, as a dataclass's does."""

    @record(eq=False)
    class Node:
        next: object = None

    node = Node()
    node.next = node
    assert repr(node).endswith("Node(next=...)")


def test_a_frozen_slotted_record_pickles() -> None:
    """A frozen record with __slots__ pickles and unpickles to an equal record."""
    assert pickle.loads(pickle.dumps(_Pickled(1, "a"))) == _Pickled(1, "a")


@record(frozen=True, slots=True)
class _Pickled:
    number: int
    text: str


GRAPH_DATACLASSES = {
    "pyctx_web.graph.types.Command": "LangGraph's dataclass",
    "pyctx_web.graph.types.Interrupt": "LangGraph's dataclass",
    "pyctx_web.graph.types.PregelTask": "LangGraph's dataclass",
    "pyctx_web.graph.types.RetryPolicy": "LangGraph's dataclass",
    "pyctx_web.graph.types.Send": "LangGraph's dataclass",
    "pyctx_web.graph.types.StateSnapshot": "LangGraph's dataclass (dataclasses.replace)",
    "pyctx_web.graph.types.TracePolicy": "LangGraph's dataclass",
    "pyctx_web.graph.runtime.ExecutionInfo": "LangGraph's dataclass",
    "pyctx_web.graph.runtime.Runtime": "LangGraph's dataclass (override() replaces)",
    "pyctx_web.graph.runtime.ServerInfo": "LangGraph's dataclass",
    "pyctx_web.graph.middleware.ToolCallRequest": "LangChain's dataclass (override() replaces)",
    "pyctx_web.graph.middleware.NodeCallRequest": "override() replaces, as ToolCallRequest's",
    "pyctx_web.graph.prebuilt.tool_node.ToolCallRequest": "LangGraph's dataclass (override())",
    "pyctx_web.graph.prebuilt.tool_node.ToolRuntime": "LangGraph's dataclass",
    "pyctx_web.graph.checkpoint.base.CheckpointRecord": "a saver's contract",
    "pyctx_web.graph.checkpoint.base.StoredCheckpoint": "a saver's contract (replace)",
    "pyctx_web.graph.checkpoint.base.StoredWrite": "a saver's contract (replace)",
    "pyctx_web.graph._engine.loop._TaskOutcome": "made by the step loop, loaded with a first run",
}
"""The dataclasses of pyctx_web.graph (drawing aside, loaded by get_graph()), with why."""


def test_the_graph_declares_its_own_records_with_record() -> None:
    """pyctx_web.graph defines no dataclass but LangGraph's types and the saver contract."""
    import importlib
    import pkgutil

    import pyctx_web.graph

    found = set()
    for info in pkgutil.walk_packages(pyctx_web.graph.__path__, "pyctx_web.graph."):
        if info.name.startswith(
            ("pyctx_web.graph.drawing", "pyctx_web.graph.checkpoint.indexeddb")
        ):
            continue  # drawing waits for get_graph(); IndexedDBSaver needs JavaScript
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and value.__module__.startswith("pyctx_web.graph")
                and value.__qualname__ == name
            ):
                found.add(f"{value.__module__}.{name}")
    assert sorted(found - set(GRAPH_DATACLASSES)) == []
