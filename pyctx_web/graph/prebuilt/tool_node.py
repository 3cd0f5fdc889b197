"""``ToolNode``: the node that runs the tool calls of the last AI message, as LangGraph's.

Each call of the AI message runs its tool (async runs run them concurrently), with
the graph state, store and a ``ToolRuntime`` injected where the tool asks for them,
and answers with one ToolMessage per call; a tool may instead return a ``Command``,
which the node passes on. ``handle_tool_errors`` chooses which exceptions become an
error ToolMessage for the model; ``wrap_tool_call`` wraps each call (retry, edit,
short-circuit) around the function that runs it. Needs ``langchain-core``.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.tools import tool as as_tool
from pydantic import ValidationError

from pyctx_web._env import IN_PYODIDE
from pyctx_web._homes import publish
from pyctx_web.graph._engine.frames import graph_state
from pyctx_web.graph._sync import in_sync_form
from pyctx_web.graph.constants import END
from pyctx_web.graph.errors import GraphBubbleUp, is_invalid_resume
from pyctx_web.graph.prebuilt._config import runtime_in, tool_config
from pyctx_web.graph.prebuilt._errors import (
    TOOL_CALL_ERROR_TEMPLATE,
    ToolInvocationError,
    error_content,
)

# LangGraph's tests import the handler-type reader from here by this name.
from pyctx_web.graph.prebuilt._errors import _handled_types as _infer_handled_types  # noqa: F401
from pyctx_web.graph.prebuilt._injected import (
    SKIP,
    STRIP,
    InjectedState,
    InjectedStore,
    ToolRuntime,
    has_default,
    injections_of,
)
from pyctx_web.graph.prebuilt._outputs import combine, normalize

__all__ = [
    "TOOL_CALL_ERROR_TEMPLATE",
    "InjectedState",
    "InjectedStore",
    "ToolCallRequest",
    "ToolCallWithContext",
    "ToolCallWrapper",
    "ToolInvocationError",
    "ToolNode",
    "ToolRuntime",
    "tools_condition",
]


@dataclass
class ToolCallRequest:
    """One tool call as a wrapper sees it: the call, its tool, the state and runtime."""

    tool_call: ToolCall
    tool: BaseTool | None
    state: Any
    runtime: Any

    def __setattr__(self, name: str, value: Any) -> None:
        # Setting a field after the request is made still works, as in LangGraph, but
        # warns: a wrapper gives a changed request to its handler with override().
        if name in self.__dataclass_fields__ and hasattr(self, name):
            warnings.warn(
                f"Setting attribute '{name}' on ToolCallRequest is deprecated. Use the "
                "override() method instead to create a new instance with modified values.",
                DeprecationWarning,
                stacklevel=2,
            )
        object.__setattr__(self, name, value)

    def override(self, **changes: Any) -> ToolCallRequest:
        """A copy of this request with ``changes`` applied.

        A new ``state`` is also the state of the request's ToolRuntime, which the tool reads.
        """
        request = replace(self, **changes)
        if "state" in changes and isinstance(request.runtime, ToolRuntime):
            request = replace(request, runtime=replace(request.runtime, state=request.state))
        return request


ToolCallWithContext = TypedDict(
    "ToolCallWithContext",
    {"__type": Literal["tool_call_with_context"], "tool_call": ToolCall, "state": Any},
)
"""What a ``Send`` to the tool node carries to run one call: the call and the graph state."""

ToolCallWrapper = Callable[[ToolCallRequest, Callable[[ToolCallRequest], Any]], Any]
"""``wrap(request, execute)``: runs ``execute(request)`` (or not) and returns its result."""


def _messages_of(state: Any, key: str) -> list[AnyMessage]:
    if isinstance(state, list):
        return state
    if isinstance(state, dict):
        if key not in state:
            raise ValueError(f"No message found in input under {key!r}")
        return list(state[key])
    if hasattr(state, key):
        return list(getattr(state, key))
    raise ValueError(f"No message found in input under {key!r}")


def _last_ai(messages: Sequence[Any]) -> AIMessage:
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return message
    raise ValueError("No AIMessage found in input")


class ToolNode:
    """Runs the tool calls of the last AIMessage in the state's ``messages_key`` list."""

    def __init__(
        self,
        tools: Sequence[BaseTool | Callable[..., Any]],
        *,
        name: str = "tools",
        tags: list[str] | None = None,
        handle_tool_errors: Any = None,
        messages_key: str = "messages",
        wrap_tool_call: ToolCallWrapper | None = None,
        awrap_tool_call: Callable[..., Awaitable[Any]] | None = None,
    ) -> None:
        made = [
            tool if isinstance(tool, BaseTool) else as_tool(tool)
            for tool in tools
            if not isinstance(tool, dict)  # a provider's own tool: the model runs it
        ]
        self.name = name
        self.tags = tags
        self.tools_by_name: dict[str, BaseTool] = {tool.name: tool for tool in made}
        self._injections = {tool.name: injections_of(tool) for tool in made}
        self._handle = handle_tool_errors
        self.messages_key = messages_key
        self._wrap = wrap_tool_call
        self._awrap = awrap_tool_call

    # -- the node, called by the graph ------------------------------------------------
    def __call__(self, state: Any, runtime: Any) -> Any:
        """Run the calls of ``state``'s last AI message (as a graph node): as in LangGraph, by
        :meth:`invoke` under the graph's sync forms, else by :meth:`ainvoke` (its coroutine)."""
        from pyctx_web.graph.config import get_config

        if in_sync_form():
            return self.invoke(state, get_config(), runtime=runtime)
        return self.ainvoke(state, get_config(), runtime=runtime)

    def invoke(self, state: Any, config: Any = None, *, runtime: Any = None) -> Any:
        """Run the tool calls of ``state`` one after the other; the node's update."""
        runtime = runtime or runtime_in(config)
        calls, kind = self._calls(state)
        state = self._state_for(state, kind)
        outputs = [self._run_one(call, state, config, runtime) for call in calls]
        return self._combine(outputs, kind)

    async def ainvoke(self, state: Any, config: Any = None, *, runtime: Any = None) -> Any:
        """Run the tool calls of ``state`` concurrently; the node's update."""
        runtime = runtime or runtime_in(config)
        calls, kind = self._calls(state)
        state = self._state_for(state, kind)
        jobs = [self._arun_one(call, state, config, runtime) for call in calls]
        return self._combine(list(await asyncio.gather(*jobs)), kind)

    # -- the parts --------------------------------------------------------------------
    def _state_for(self, given: Any, kind: str) -> Any:
        """The state the calls see: for bare tool calls (a Send's), the graph's state."""
        if kind != "calls":
            return given
        state = graph_state()
        return given if state is None else state

    def _calls(self, state: Any) -> tuple[list[ToolCall], Literal["list", "dict", "calls"]]:
        if (
            isinstance(state, list)
            and state
            and isinstance(state[-1], dict)
            and state[-1].get("type") == "tool_call"
        ):
            return list(state), "calls"
        if isinstance(state, dict) and state.get("__type") == "tool_call_with_context":
            return [state["tool_call"]], "dict"
        messages = _messages_of(state, self.messages_key)
        kind: Literal["list", "dict"] = "list" if isinstance(state, list) else "dict"
        return list(_last_ai(messages).tool_calls), kind

    def _combine(self, outputs: list[Any], kind: str) -> Any:
        return combine(outputs, kind == "list", self.messages_key)

    def _request(self, call: ToolCall, state: Any, config: Any, runtime: Any) -> ToolCallRequest:
        if isinstance(state, dict) and state.get("__type") == "tool_call_with_context":
            state = state["state"]  # a Send of one call: the graph state it carries
        tool = self.tools_by_name.get(call["name"])
        return ToolCallRequest(call, tool, state, self._tool_runtime(call, state, config, runtime))

    def _tool_runtime(self, call: ToolCall, state: Any, config: Any, runtime: Any) -> ToolRuntime:
        """The ToolRuntime of one call: the request's ``runtime``, injected into tools as is."""
        return ToolRuntime(
            state=state,
            context=getattr(runtime, "context", None),
            config=config or {},
            stream_writer=getattr(runtime, "stream_writer", None),
            tool_call_id=call["id"],
            store=getattr(runtime, "store", None),
            execution_info=getattr(runtime, "execution_info", None),
            server_info=getattr(runtime, "server_info", None),
            tools=list(self.tools_by_name.values()),
        )

    def _run_one(self, call: ToolCall, state: Any, config: Any, runtime: Any) -> Any:
        request = self._request(call, state, config, runtime)

        def execute(req: ToolCallRequest) -> Any:
            return self._execute(req, config)

        if self._wrap is None:
            return execute(request)
        try:
            return self._wrap(request, execute)
        except Exception as error:  # handle_tool_errors decides; _failed re-raises the rest
            if _bubbles(error):
                raise
            return self._failed(request.tool_call, error)

    async def _arun_one(self, call: ToolCall, state: Any, config: Any, runtime: Any) -> Any:
        request = self._request(call, state, config, runtime)

        async def execute(req: ToolCallRequest) -> Any:
            return await self._aexecute(req, config)

        try:
            if self._awrap is not None:
                return await self._awrap(request, execute)
            if self._wrap is not None:
                return self._wrap(request, lambda req: self._execute(req, config))
        except Exception as error:  # handle_tool_errors decides; _failed re-raises the rest
            if _bubbles(error):
                raise
            return self._failed(request.tool_call, error)
        return await execute(request)

    def _prepare(
        self, request: ToolCallRequest, config: Any
    ) -> tuple[BaseTool, dict[str, Any]] | ToolMessage:
        call = request.tool_call
        tool = request.tool
        if tool is None:
            names = ", ".join(self.tools_by_name)
            return ToolMessage(
                f"Error: {call['name']} is not a valid tool, try one of [{names}].",
                name=call["name"],
                tool_call_id=call["id"],
                status="error",
            )
        args = dict(call["args"])
        known = self.tools_by_name.get(tool.name) is tool
        for param, wants in (self._injections[tool.name] if known else injections_of(tool)).items():
            if wants == STRIP:
                args.pop(param, None)
            else:
                value = self._injected(wants, call, request, config)
                if value is not SKIP:
                    args[param] = value
                elif not has_default(tool, param):
                    field = wants.field
                    raise (
                        KeyError(field)
                        if isinstance(request.state, dict)
                        else AttributeError(field)
                    )
        return tool, {**call, "args": args, "type": "tool_call"}

    def _injected(self, wants: Any, call: ToolCall, request: ToolCallRequest, config: Any) -> Any:
        runtime = request.runtime
        store = getattr(runtime, "store", None)
        if wants is ToolRuntime:
            if isinstance(runtime, ToolRuntime):
                return runtime
            # a wrapper gave the request another runtime: a ToolRuntime of its parts
            return self._tool_runtime(call, request.state, config, runtime)
        if isinstance(wants, InjectedStore):
            if store is None:
                raise ValueError(
                    "Cannot inject store into tools with InjectedStore annotations - please "
                    "compile your graph with a store."
                )
            return store
        state = request.state
        if isinstance(state, list):
            if isinstance(wants, InjectedState) and wants.field not in (None, self.messages_key):
                raise ValueError(
                    f"Invalid input to ToolNode. Tool {call['name']} requires graph state dict "
                    f"as input. State should contain fields {wants.field}."
                )
            state = {self.messages_key: state}
        if isinstance(state, dict) and state.get("__type") == "tool_call_with_context":
            state = state["state"]
        if isinstance(wants, InjectedState) and wants.field:
            # a field the state lacks is left to the parameter's default (or refused)
            field = wants.field
            return (
                state.get(field, SKIP) if isinstance(state, dict) else getattr(state, field, SKIP)
            )
        return state

    def _finish(self, request: ToolCallRequest, call: dict[str, Any], result: Any) -> Any:
        state = request.state
        as_list = isinstance(state, list) and not (state and isinstance(state[-1], dict))
        return normalize(result, call, as_list, self.messages_key)

    def _failed(self, call: Any, error: Exception) -> ToolMessage:
        if isinstance(error, ValidationError) and _of_arguments(self, call, error):
            injected = self._injections.get(call["name"], {})
            args = {k: v for k, v in call["args"].items() if k not in injected}
            kept = [e for e in error.errors() if not (e["loc"] and e["loc"][0] in injected)]
            error = ToolInvocationError(call["name"], error, args, kept)
        content = error_content(self._handle, error)
        if content is None:
            raise error
        return ToolMessage(content, name=call["name"], tool_call_id=call["id"], status="error")

    def _execute(self, request: ToolCallRequest, config: Any) -> Any:
        prepared = self._prepare(request, config)
        if isinstance(prepared, ToolMessage):
            return prepared
        tool, call = prepared
        try:
            return self._finish(request, call, tool.invoke(call, tool_config(config)))
        except Exception as error:  # handle_tool_errors decides; _failed re-raises the rest
            if _bubbles(error):
                raise
            return self._failed(request.tool_call, error)

    async def _aexecute(self, request: ToolCallRequest, config: Any) -> Any:
        prepared = self._prepare(request, config)
        if isinstance(prepared, ToolMessage):
            return prepared
        tool, call = prepared
        try:
            if IN_PYODIDE and _runs_sync(tool):  # no threads: in this one, same context
                return self._finish(request, call, tool.invoke(call, tool_config(config)))
            return self._finish(request, call, await tool.ainvoke(call, tool_config(config)))
        except Exception as error:  # handle_tool_errors decides; _failed re-raises the rest
            if _bubbles(error):
                raise
            return self._failed(request.tool_call, error)


def _of_arguments(node: ToolNode, call: Any, error: ValidationError) -> bool:
    """Whether ``error`` is the tool's schema refusing the call's arguments (not the tool's own)."""
    tool = node.tools_by_name.get(call["name"])
    schema = getattr(tool, "args_schema", None)
    return schema is None or error.title == getattr(schema, "__name__", None)


def _runs_sync(tool: BaseTool) -> bool:
    """Whether ``tool`` is a plain function tool (no coroutine of its own)."""
    if isinstance(tool, StructuredTool):
        return tool.coroutine is None and tool.func is not None
    return type(tool)._arun is BaseTool._arun


def _bubbles(error: Exception) -> bool:
    """Interrupts, a parent's Command and a refused answer to an interrupt pass through."""
    return isinstance(error, GraphBubbleUp) or is_invalid_resume(error)


def tools_condition(state: Any, messages_key: str = "messages") -> Literal["tools", "__end__"]:
    """``"tools"`` when the last message asks for tool calls, else END: a conditional edge."""
    messages = _messages_of(state, messages_key)
    if not messages:
        raise ValueError(f"No messages found in input state to tool_edge: {state}")
    last = messages[-1]
    return "tools" if getattr(last, "tool_calls", None) else END


publish(__name__, InjectedState, InjectedStore, ToolRuntime, ToolInvocationError)
