"""Human review of tool calls: :class:`HumanInTheLoopMiddleware`, as LangChain names it.

The review itself (the question, the decisions) is :mod:`.approval`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from types import MappingProxyType
from typing import Any, Final

from pyctx_web._homes import publish
from pyctx_web._records import record
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph._engine.runtime import Runtime
from pyctx_web.graph._runctx.middleware import AgentMiddleware

__all__ = ["DECISIONS", "HumanInTheLoopMiddleware", "ReviewConfig"]


DECISIONS: Final = ("approve", "edit", "reject")
"""The decisions a reviewer may make on a tool call, as LangChain names them."""

_CONFIG_KEYS: Final = ("allowed_decisions", "description", "arguments_schema")

Description = Callable[[dict[str, Any], "Runtime[Any]"], "str | Awaitable[str]"]
"""``description(call, runtime)``: the text shown for ``call`` (``name``, ``arguments``, ``id``)."""


@record(frozen=True, slots=True)
class ReviewConfig:
    """How the calls of one tool are reviewed."""

    allowed_decisions: tuple[str, ...]
    """The decisions the reviewer may make, among :data:`DECISIONS`."""
    description: str | Description | None = None
    """The text shown with each call, or a function making it; ``None``: the default."""
    arguments_schema: Mapping[str, Any] | None = None
    """The JSON Schema edited arguments must satisfy; ``None``: the tool's parameters."""


def _review_config(tool: str, config: Any) -> ReviewConfig | None:
    """``config`` of ``interrupt_on[tool]`` checked: ``None`` for a tool that runs unreviewed."""
    if config is True:
        return ReviewConfig(DECISIONS)
    if config is False:
        return None
    where = f"interrupt_on[{tool!r}]"
    if not isinstance(config, Mapping):
        raise ArgumentTypeError(f"{where} must be a bool or a dict, not {type(config).__name__!r}")
    unknown = sorted(str(k) for k in config if k not in _CONFIG_KEYS)
    if unknown:
        raise ArgumentValueError(
            f"{where} has unknown key(s) {', '.join(map(repr, unknown))}; "
            f"known keys: {', '.join(_CONFIG_KEYS)}"
        )
    allowed = config.get("allowed_decisions", DECISIONS)
    if isinstance(allowed, str) or not isinstance(allowed, Iterable):
        raise ArgumentTypeError(f"{where}['allowed_decisions'] must be a list of decision types")
    allowed = list(allowed)
    if not allowed or any(not isinstance(d, str) or d not in DECISIONS for d in allowed):
        raise ArgumentValueError(
            f"{where}['allowed_decisions'] must be a non-empty list among "
            f"{', '.join(map(repr, DECISIONS))}, not {allowed!r}"
        )
    description = config.get("description")
    if description is not None and not isinstance(description, str) and not callable(description):
        raise ArgumentTypeError(
            f"{where}['description'] must be a str or a function (call, runtime) -> str, "
            f"not {type(description).__name__!r}"
        )
    schema = config.get("arguments_schema")
    if schema is not None:
        # Imported here: the schema checker and validator wait for a schema to check.
        from pyctx_web.graph._runctx.schemacheck import check_schema

        check_schema(schema, f"{where}['arguments_schema']")
        schema = MappingProxyType(dict(schema))
    return ReviewConfig(tuple(dict.fromkeys(allowed)), description, schema)


class HumanInTheLoopMiddleware(AgentMiddleware[Any]):
    """Pause the run for a person to approve, edit or reject tool calls before they run.

    ``interrupt_on`` maps a tool's name to ``True`` (any decision: approve, edit
    or reject), ``False`` (runs unreviewed, as a tool not named) or a dict with
    ``allowed_decisions`` (a list among ``"approve"``, ``"edit"``,
    ``"reject"``; all three when left out), ``description`` (a str, or a
    function ``description(call, runtime)`` of the call ``{"name", "arguments",
    "id"}`` and the run's :class:`~pyctx_web.graph.runtime.Runtime`, returning
    the str, or an awaitable of it) and ``arguments_schema`` (the JSON Schema
    edited arguments must satisfy, on top of the tool's own; shown to the
    reviewer; the tool's parameters when left out). The default description is
    ``f"{description_prefix}\n\nTool: {name}\nArgs: {arguments}"``.

    The calls a node makes together (``await runtime.call_tools([...])``, or one
    ``await runtime.call_tool(name, args)``) are reviewed together: the node pauses
    with one ``interrupt()`` whose value lists the calls to review, in order::

        {"action_requests": [{"name", "arguments", "description"}, ...],
         "review_configs": [{"action_name", "allowed_decisions", "arguments_schema"}, ...]}

    (one review config per tool among the requests). The other calls of the
    batch run without review. The run resumes with one decision per request, in
    order: ``{"type": "approve"}``, ``{"type": "edit", "edited_action": {"name":
    ..., "arguments": {...}}}`` (``"args"`` is accepted for ``"arguments"``; the
    name may be any tool of the graph, and the arguments are checked against its
    schema) or ``{"type": "reject", "message": "..."}`` (the tool does not run and
    the message is its result; by default the message is LangChain's). A
    missing, extra, malformed or disallowed decision, or edited arguments that
    break the schema, refuse the resume with
    :class:`~pyctx_web.graph.errors.ResumeError` listing each problem by decision
    index; the thread is left as it was, so the same question can be answered
    again (when one resume answers the questions of several nodes of a step, the
    nodes whose decisions were fine run and keep their results). As with any
    ``interrupt()``, the node runs again from its first line on
    resume: it must propose the same calls (same names and arguments), or the
    resume is refused rather than the decisions applied to other calls.

    The review comes before any ``awrap_tool_call`` of each call, whatever
    this middleware's place in the list; when several are given, the first that
    names a tool reviews its calls. The tools it reviews must be tools of the
    graph (checked by ``compile()``). Decisions are streamed as a ``custom``
    chunk ``{"event": "approval", ...}`` and recorded in
    ``runtime.log.tool_calls`` (``review``).

    ::

        graph = builder.compile(
            InMemorySaver(),
            tools=[send_email, schedule_meeting, read_data],
            middleware=[
                HumanInTheLoopMiddleware(
                    interrupt_on={
                        "send_email": True,
                        "schedule_meeting": {
                            "allowed_decisions": ["approve", "reject"],
                            "description": "A meeting goes into everyone's calendar",
                        },
                        "read_data": False,
                    },
                    description_prefix="Tool execution requires approval",
                )
            ],
        )

        # in a node: results = await runtime.call_tools(reply["tool_calls"])
        result = await graph.ainvoke({"messages": [...]}, thread_id="t1")
        question = result["__interrupt__"][0].value   # action_requests, review_configs
        await graph.ainvoke(
            Command(resume={"decisions": [
                {"type": "approve"},
                {"type": "reject", "message": "No meetings on Friday."},
            ]}),
            thread_id="t1",
        )
    """

    def __init__(
        self,
        interrupt_on: Mapping[str, bool | Mapping[str, Any]],
        *,
        description_prefix: str = "Tool execution requires approval",
        name: str = "human_in_the_loop",
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ArgumentValueError(f"middleware name must be a non-empty str, not {name!r}")
        if not isinstance(interrupt_on, Mapping):
            raise ArgumentTypeError(
                f"interrupt_on must be a dict of tool names, not {type(interrupt_on).__name__!r}"
            )
        if not isinstance(description_prefix, str):
            raise ArgumentTypeError(
                f"description_prefix must be a str, not {type(description_prefix).__name__!r}"
            )
        configs: dict[str, ReviewConfig] = {}
        for tool, config in interrupt_on.items():
            if not isinstance(tool, str) or not tool:
                raise ArgumentTypeError(f"interrupt_on keys must be tool names (str), not {tool!r}")
            checked = _review_config(tool, config)
            if checked is not None:
                configs[tool] = checked
        self._name = name
        self.interrupt_on: Mapping[str, ReviewConfig] = MappingProxyType(configs)
        """The tools whose calls are reviewed, with how; tools not listed run unreviewed."""
        self.description_prefix = description_prefix
        """The first line of the default description."""

    @property
    def name(self) -> str:
        """Shown in errors: ``name=`` (``"human_in_the_loop"`` by default)."""
        return self._name

    def check_tools(self, known: Collection[str]) -> None:
        """Raise ``ArgumentValueError`` naming the tools it reviews that ``known`` lacks."""
        missing = [name for name in self.interrupt_on if name not in known]
        if missing:
            names = ", ".join(map(repr, sorted(known))) or "none"
            raise ArgumentValueError(
                f"middleware {self.name!r}: interrupt_on names tool(s) "
                f"{', '.join(map(repr, missing))} that the graph does not have; "
                f"its tools: {names}"
            )


publish("pyctx_web.graph.middleware", HumanInTheLoopMiddleware, ReviewConfig)
