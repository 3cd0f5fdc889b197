"""What one call of a compiled graph asks for: its config, keywords, breakpoints and stream modes.

:func:`parse_config` reads a LangGraph config (``{"configurable": {"thread_id": ...}}``)
into a :class:`ParsedConfig`; :class:`RunOptions` are the keywords of a run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, TypedDict, TypeVar

from pyctx_web._records import record
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.execution import ExecutionContext
from pyctx_web.graph._engine.channels import is_state_type
from pyctx_web.graph.errors import InvalidGraphError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.spec import GraphSpec
    from pyctx_web.graph.checkpoint.base import Checkpointer

__all__ = [
    "DEFAULT_RECURSION_LIMIT",
    "DONE",
    "MESSAGE_EVENTS_KEY",
    "NAMESPACE_SEPARATOR",
    "STREAM_MODES",
    "Breakpoints",
    "ParsedConfig",
    "RunOptions",
    "breakpoints",
    "check_options",
    "child_thread",
    "config_of",
    "context_of",
    "durability_of",
    "multitask_of",
    "next_item",
    "parse_config",
    "stream_modes",
]

T = TypeVar("T")

STREAM_MODES: Final = frozenset(
    {"updates", "values", "custom", "messages", "checkpoints", "tasks", "debug", "tools"}
)
MESSAGE_EVENTS_KEY: Final = "__pregel_stream_messages_v2"
"""The ``configurable`` key of a run whose ``messages`` carry LangChain's message events."""
DEFAULT_RECURSION_LIMIT: Final = 25
DONE: Final = "__done__"


NAMESPACE_SEPARATOR: Final = "\x1f"
"""Between a thread id and a subgraph's namespace in the key its checkpoints are stored under."""


def child_thread(thread_id: str, namespace: tuple[str, ...]) -> str:
    """The key a subgraph's checkpoints are stored under, in its parent's checkpointer."""
    return NAMESPACE_SEPARATOR.join((thread_id, *namespace))


def config_of(thread_id: str | None, checkpoint_id: str | None = None) -> dict[str, Any]:
    """The config that names a thread (or a subgraph's place in it) and one of its checkpoints."""
    namespace = ""
    if thread_id is not None and NAMESPACE_SEPARATOR in thread_id:
        thread_id, *parts = thread_id.split(NAMESPACE_SEPARATOR)
        namespace = "|".join(parts)
    conf: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": namespace}
    if checkpoint_id is not None:
        conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


@record(frozen=True, slots=True)
class ParsedConfig:
    """A call's LangGraph config and ``thread_id=`` keyword, parsed once."""

    thread_id: str | None
    """The thread, as a str (LangGraph turns any value into one); ``None`` for none."""
    checkpoint_id: str | None
    """The checkpoint the config names, or ``None`` for the thread's latest."""
    recursion_limit: int
    """How many steps a run may take."""
    config: dict[str, Any]
    """The config as given, for ``get_config()``."""


def parse_config(
    config: Mapping[str, Any] | None, *, thread_id: Any = None, what: str = "config"
) -> ParsedConfig:
    """Parse a LangGraph config (``{"configurable": {"thread_id": ...}, ...}``) and keywords.

    A ``thread_id`` keyword wins over the config's. Thread ids of any type are
    turned into ``str`` (``uuid.uuid4()`` gives its text), as in LangGraph.
    """
    conf: Mapping[str, Any] = {}
    limit: Any = DEFAULT_RECURSION_LIMIT
    if config is not None:
        if not isinstance(config, Mapping):
            raise ArgumentTypeError(f"{what} must be a dict, not {type(config).__qualname__!r}")
        conf = config.get("configurable") or {}
        if not isinstance(conf, Mapping):
            raise ArgumentTypeError(
                f"{what}['configurable'] must be a dict, not {type(conf).__qualname__!r}"
            )
        limit = config.get("recursion_limit", limit)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ArgumentValueError(f"recursion_limit must be an int >= 1, not {limit!r}")
    if thread_id is None:
        thread_id = conf.get("thread_id")
    checkpoint_id = conf.get("checkpoint_id")
    if checkpoint_id is not None and not isinstance(checkpoint_id, str):
        raise ArgumentTypeError(
            f"checkpoint_id must be a str, not {type(checkpoint_id).__qualname__!r}"
        )
    if isinstance(thread_id, bytes | bytearray):
        raise ArgumentTypeError(f"thread_id must be a str, not {type(thread_id).__qualname__!r}")
    thread = None if thread_id is None else str(thread_id)
    for name, text in (("thread_id", thread), ("checkpoint_id", checkpoint_id)):
        _check_storable(name, text)
    return ParsedConfig(thread, checkpoint_id, limit, dict(config or {}))


def _check_storable(name: str, text: str | None) -> None:
    """:class:`ArgumentValueError` if ``text`` holds a lone surrogate, which no storage keeps."""
    if text is None:
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ArgumentValueError(
            f"{name} must be storable text: {text!r} has a lone surrogate "
            f"{text[error.start]!r} at index {error.start}"
        ) from None


def stream_modes(stream_mode: str | Sequence[str]) -> tuple[frozenset[str], bool]:
    """The set of modes, and whether a single mode was asked for (chunks without a name)."""
    single = isinstance(stream_mode, str)
    modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
    for mode in modes:
        if mode not in STREAM_MODES:
            raise ArgumentValueError(
                f"unknown stream_mode {mode!r}; expected one of {', '.join(sorted(STREAM_MODES))}"
            )
    if not modes:
        raise ArgumentValueError("stream_mode must name at least one mode")
    return frozenset(modes), single


async def next_item(agen: AsyncIterator[T]) -> T:
    """The next item of ``agen`` (for sync iteration through an event loop runner)."""
    return await agen.__anext__()


ExecutionContextArg = ExecutionContext | Mapping[str, Any] | None
Breakpoints = Sequence[str] | str | None
Durability = Literal["sync", "async", "exit"]
Multitask = Literal["reject", "enqueue"]
DURABILITIES: Final = ("sync", "async", "exit")


class RunOptions(TypedDict, total=False):
    """The keywords of ``invoke``, ``ainvoke``, ``stream``, ``astream`` and ``start``."""

    context: Any
    """The run's context (``runtime.context``); a dict becomes the context schema."""
    thread_id: Any
    """Shorthand for ``config={"configurable": {"thread_id": ...}}``."""
    interrupt_before: Breakpoints
    """Nodes to pause before in this run, instead of compile()'s."""
    interrupt_after: Breakpoints
    """Nodes to pause after in this run, instead of compile()'s."""
    multitask: Multitask
    """A second run of a busy thread: "reject" (``ThreadBusyError``, the default) or "enqueue"."""
    durability: Durability
    """When checkpoints are written: "sync" (the default), "async" or "exit", as LangGraph's."""
    execution_context: ExecutionContextArg
    """Tenant, user and correlation id: an ExecutionContext, or a mapping merged onto it."""
    subgraphs: bool
    """Whether subgraphs stream too (and print, with ``print_mode``), as ``(namespace, chunk)``."""
    print_mode: str | Sequence[str]
    """Stream modes whose chunks are printed as the run makes them, as LangGraph's."""
    debug: bool | None
    """Print each step's updates and values (LangGraph's ``print_mode=["updates", "values"]``)."""


def check_options(options: RunOptions) -> None:
    """:class:`ArgumentTypeError` naming a keyword a run does not take."""
    unknown = set(options) - set(RunOptions.__annotations__)
    if unknown:
        raise ArgumentTypeError(
            f"got an unexpected keyword argument {sorted(unknown)[0]!r}; "
            f"expected {', '.join(sorted(RunOptions.__annotations__))}"
        )


def breakpoints(
    spec: GraphSpec,
    checkpointer: Checkpointer | None,
    names: Breakpoints,
    what: str,
    default: frozenset[str],
) -> frozenset[str]:
    """The nodes a call pauses at: its own ``interrupt_before``/``_after``, or compile()'s."""
    if names is None:
        return default
    if names == "*":
        return frozenset(spec.nodes)
    chosen = frozenset([names] if isinstance(names, str) else names)
    unknown = sorted(chosen - set(spec.nodes))
    if unknown:
        known = ", ".join(map(repr, spec.nodes))
        raise InvalidGraphError(f"{what}: unknown node(s) {unknown} (known nodes: {known})")
    if chosen and checkpointer is None:
        raise InvalidGraphError(f"{what} needs a checkpointer to pause and resume")
    return chosen


def multitask_of(options: RunOptions, default: str) -> str:
    """The call's ``multitask=``, or the graph's; :class:`ArgumentValueError` for others."""
    multitask = options.get("multitask") or default
    if multitask not in ("reject", "enqueue"):
        raise ArgumentValueError(f"multitask must be 'reject' or 'enqueue', not {multitask!r}")
    return multitask


def durability_of(options: RunOptions) -> str:
    """The run's durability: the ``durability=`` given, or ``"sync"``."""
    durability = options.get("durability") or "sync"
    if durability not in DURABILITIES:
        raise ArgumentValueError(
            f"durability must be one of {', '.join(map(repr, DURABILITIES))}, not {durability!r}"
        )
    return durability


def context_of(spec: GraphSpec, options: RunOptions) -> Any:
    """The run's ``context=``, as ``context_schema`` types it."""
    given = options.get("context")
    schema = spec.context_schema
    if isinstance(given, Mapping) and schema is not None and is_state_type(schema):
        return schema(**given)  # LangGraph builds the context schema from a dict
    return given
