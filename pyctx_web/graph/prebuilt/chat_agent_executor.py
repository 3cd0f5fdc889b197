"""``create_react_agent``: a chat model calling tools in a loop, as LangGraph's prebuilt agent.

The graph: ``agent`` (the model, given the prompt and the messages) and, while its
reply asks for tool calls, ``tools`` (a :class:`ToolNode`), then back to ``agent``.
Optional nodes: ``pre_model_hook`` before each model call (its ``llm_input_messages``
are what the model reads, else its update goes to the state), ``post_model_hook``
after it, and ``generate_structured_response`` at the end when ``response_format``
is given. ``version="v1"`` runs a reply's tool calls in one ``tools`` task,
``"v2"`` in one task each (``Send``). Needs ``langchain-core``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    TypedDict,
    get_type_hints,
)

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import BaseModel

from pyctx_web.graph._engine.channels import is_typed_dict
from pyctx_web.graph._sync import in_sync_form
from pyctx_web.graph._values import Send
from pyctx_web.graph.constants import END, START
from pyctx_web.graph.message import add_messages
from pyctx_web.graph.prebuilt._deprecated import context_schema_of

# _get_model also under this module, where LangGraph's tests import it from.
from pyctx_web.graph.prebuilt._model import (
    _get_model,
    _should_bind_tools,
    _validate_chat_history,
)
from pyctx_web.graph.prebuilt.tool_node import ToolNode

__all__ = [
    "AgentState",
    "AgentStatePydantic",
    "StateSchemaType",
    "StructuredResponse",
    "create_react_agent",
]

StructuredResponse = dict[str, Any] | Any
"""The agent's ``structured_response``: a dict or an instance of ``response_format``."""


class AgentState(TypedDict):
    """The state of ``create_react_agent``'s graph."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    structured_response: NotRequired[StructuredResponse]


class AgentStatePydantic(BaseModel):
    """The state of ``create_react_agent``'s graph, as a pydantic model."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    structured_response: StructuredResponse = None


StateSchemaType = type[AgentState] | type[AgentStatePydantic]
"""A state schema ``create_react_agent`` takes: a TypedDict or pydantic model like its own."""


def _prompt_runner(prompt: Any) -> Callable[[Any], Any]:
    """The model's input from the state (or an awaitable of it), for each form of ``prompt``."""
    if prompt is None:
        return lambda state: list(_messages(state))
    if isinstance(prompt, str):
        system = SystemMessage(content=prompt)
        return lambda state: [system, *_messages(state)]
    if isinstance(prompt, SystemMessage):
        return lambda state: [prompt, *_messages(state)]
    if isinstance(prompt, Runnable):
        return lambda state: _called(prompt, state)
    if callable(prompt):
        return _with_run_parts(prompt)
    raise ValueError(
        f"prompt must be a str, SystemMessage, callable or Runnable; got {type(prompt).__name__}"
    )


def _with_run_parts(fn: Callable[..., Any]) -> Callable[[Any], Any]:
    """``fn(state)``, also given the run's ``config`` and ``store`` when it names them."""
    import inspect

    from pyctx_web.graph.config import get_config, get_store

    names = set(inspect.signature(fn).parameters)

    def call(state: Any) -> Any:
        extra: dict[str, Any] = {}
        if "config" in names:
            extra["config"] = get_config()
        if "store" in names:
            extra["store"] = get_store()
        return fn(state, **extra)

    return call


def _messages(state: Any) -> Sequence[AnyMessage]:
    messages: Sequence[AnyMessage] = (
        state["messages"] if isinstance(state, dict) else state.messages
    )
    return messages


def _bound(model: Any, tools: Sequence[BaseTool | dict[str, Any]]) -> Any:
    """``model`` with ``tools`` bound, unless it has tools bound already (or there are none)."""
    if tools and _should_bind_tools(model, tools):
        return model.bind_tools(tools)
    return model


def _model_node(
    model: Any, tools: Sequence[BaseTool | dict[str, Any]], prompt: Any, name: str | None
) -> Callable[..., Any]:
    static = None if _is_dynamic(model) else _bound(model, tools)
    make_input = _prompt_runner(prompt)

    async def call_model(state: Any, runtime: Any) -> dict[str, Any]:
        chosen = static
        if chosen is None:
            chosen = _bound(await _settled(_choose(model, state, runtime)), tools)
        view = dict(state) if isinstance(state, dict) else state
        if isinstance(view, dict) and "llm_input_messages" in view:
            view = {**view, "messages": view["llm_input_messages"]}
        elif isinstance(view, BaseModel) and (hooked := getattr(view, "llm_input_messages", None)):
            view = view.model_copy(update={"messages": hooked})
        _validate_chat_history(_messages(view))
        model_input = await _settled(make_input(view))
        if isinstance(model_input, Runnable):  # a prompt may answer with a template to fill
            model_input = await model_input.ainvoke(view)
        reply = await _called(chosen, model_input)
        if name and isinstance(reply, AIMessage):
            reply.name = name
        return {"messages": [reply]}

    return call_model


async def _called(runnable: Runnable[Any, Any], value: Any) -> Any:
    """``runnable`` run on ``value`` by the API of the graph's call, as LangGraph's agent does:
    ``invoke`` under ``invoke()``/``stream()``, ``ainvoke`` under ``ainvoke()``/``astream()``
    (in a page, the model's async client)."""
    if in_sync_form():
        return runnable.invoke(value)
    return await runnable.ainvoke(value)


async def _settled(value: Any) -> Any:
    """``value``, awaited first when a prompt or model function was a coroutine function."""
    import inspect

    return await value if inspect.isawaitable(value) else value


def _is_dynamic(model: Any) -> bool:
    return callable(model) and not isinstance(model, (Runnable, BaseChatModel))


def _choose(model: Callable[..., Any], state: Any, runtime: Any) -> Any:
    import inspect

    return model(state, runtime) if len(inspect.signature(model).parameters) > 1 else model(state)


def _route(
    tool_node: ToolNode | None, version: str, after: str, back: str | None
) -> Callable[[Any], Any]:
    """Where the agent goes after the model (after the post_model_hook, ``back`` given)."""

    def to_tools(calls: list[Any], state: Any) -> Any:
        if version == "v1":
            return "tools"
        if not isinstance(state, dict):
            # A model or dataclass state is not a Send argument a checkpoint can hold: the
            # tools read the graph state themselves (ToolNode does for bare calls).
            return [Send("tools", [call]) for call in calls]
        return [
            Send("tools", {"__type": "tool_call_with_context", "tool_call": call, "state": state})
            for call in calls
        ]

    def should_continue(state: Any) -> Any:
        messages = _messages(state)
        last = messages[-1]
        if back is None:
            if not isinstance(last, AIMessage) or not last.tool_calls or tool_node is None:
                return after
            return to_tools(last.tool_calls, state)
        # After a post_model_hook: the model's calls the hook has not answered go to the
        # tools; when it answered them all, the model reads the answers.
        asked = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        pending = [c for c in (asked.tool_calls if asked else []) if c["id"] not in answered]
        if pending and tool_node is not None:
            return to_tools(pending, state)
        if getattr(last, "type", None) == "tool":
            return back
        return after

    return should_continue


def _structured_node(model: Any, response_format: Any) -> Callable[..., Any]:
    system, schema = (
        response_format if isinstance(response_format, tuple) else (None, response_format)
    )

    async def generate_structured_response(state: Any, runtime: Any) -> dict[str, Any]:
        messages = list(_messages(state))
        if system is not None:
            messages = [SystemMessage(content=system), *messages]
        chosen = _choose(model, state, runtime) if _is_dynamic(model) else model
        chat = _get_model(chosen)
        structured = chat.with_structured_output(schema)
        return {"structured_response": await _called(structured, messages)}

    return generate_structured_response


def _hook(fn: Any) -> Any:
    """A hook as a node: one taking no parameters is called without the state."""
    import inspect

    if callable(fn) and not isinstance(fn, Runnable):
        try:
            takes_none = not inspect.signature(fn).parameters
        except (TypeError, ValueError):
            takes_none = False
        if takes_none:
            if inspect.iscoroutinefunction(fn):

                async def call_async(state: Any) -> Any:
                    return await fn()

                return call_async

            def call(state: Any) -> Any:
                return fn()

            return call
    return fn


def _with_hook_input(schema: Any) -> Any:
    """``schema`` (a TypedDict) with ``llm_input_messages``, which a pre_model_hook may write."""
    if not is_typed_dict(schema):
        return schema  # a pydantic state: the model node's input schema has the key
    fields = {**get_type_hints(schema, include_extras=True)}
    fields["llm_input_messages"] = NotRequired[list[AnyMessage]]
    return TypedDict(schema.__name__, fields)  # type: ignore[operator]


def _model_input(schema: Any) -> type | None:
    """What the model node reads of a pydantic state: the state and ``llm_input_messages``."""
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        return None
    from pydantic import create_model

    hook_input: Any = (list[AnyMessage] | None, None)
    model: type = create_model(
        "CallModelInputSchema", __base__=schema, llm_input_messages=hook_input
    )
    return model


def _after_tools(tool_node: ToolNode, back: str) -> Callable[[Any], str]:
    direct = {name for name, tool in tool_node.tools_by_name.items() if tool.return_direct}

    def route_tool_responses(state: Any) -> str:
        for message in reversed(_messages(state)):
            if getattr(message, "type", None) != "tool":
                break
            if message.name in direct:
                return END
        return back

    return route_tool_responses


def _checked(
    model: Any, tools: Any, version: str
) -> tuple[ToolNode | None, list[BaseTool | dict[str, Any]]]:
    """The agent's ToolNode and the tools its model binds; bad arguments refused."""
    if version not in ("v1", "v2"):
        raise ValueError(f"version must be 'v1' or 'v2'; got {version!r}")
    if isinstance(model, str):
        raise ValueError(
            f"create_react_agent needs a chat model object; a model name ({model!r}) needs"
            " langchain's init_chat_model, which pyctx_web does not call"
        )
    tool_node = tools if isinstance(tools, ToolNode) else (ToolNode(tools) if tools else None)
    provider_tools = (
        [] if isinstance(tools, ToolNode) else [t for t in tools if isinstance(t, dict)]
    )
    return tool_node, [*(tool_node.tools_by_name.values() if tool_node else ()), *provider_tools]


def _wire_tools(
    builder: Any, tool_node: ToolNode | None, version: str, places: tuple[str, str, str, str | None]
) -> None:
    """The ``tools`` node and its edges: from ``decide`` to it, from it back to ``first``."""
    decide, first, after, back = places
    if tool_node is None:
        builder.add_edge(decide, after)
        return
    ends = ["tools", after] if back is None else ["tools", back, after]
    builder.add_conditional_edges(decide, _route(tool_node, version, after, back), ends)
    if any(tool.return_direct for tool in tool_node.tools_by_name.values()):
        builder.add_conditional_edges("tools", _after_tools(tool_node, first), [first, END])
    else:
        builder.add_edge("tools", first)


def _add_hooks(builder: Any, pre_model_hook: Any, post_model_hook: Any) -> tuple[str, str]:
    """The hooks' nodes around ``agent``; the node a turn starts at and the one after the model."""
    first = "agent"
    if pre_model_hook is not None:
        builder.add_node("pre_model_hook", _hook(pre_model_hook))
        builder.add_edge("pre_model_hook", "agent")
        first = "pre_model_hook"
    builder.add_edge(START, first)
    decide = "agent"
    if post_model_hook is not None:
        builder.add_node("post_model_hook", _hook(post_model_hook))
        builder.add_edge("agent", "post_model_hook")
        decide = "post_model_hook"
    return first, decide


def create_react_agent(
    model: Any,
    tools: Sequence[BaseTool | Callable[..., Any]] | ToolNode,
    *,
    prompt: Any = None,
    response_format: Any = None,
    pre_model_hook: Any = None,
    post_model_hook: Any = None,
    state_schema: Any = None,
    context_schema: Any = None,
    checkpointer: Any = None,
    store: Any = None,
    interrupt_before: list[str] | None = None,
    interrupt_after: list[str] | None = None,
    debug: bool = False,
    version: Literal["v1", "v2"] = "v2",
    name: str | None = None,
    **deprecated_kwargs: Any,
) -> Any:
    """A compiled graph running ``model`` with ``tools`` until it answers without tool calls."""
    from pyctx_web.graph.state import StateGraph

    context_schema = context_schema_of(context_schema, deprecated_kwargs)

    tool_node, tool_list = _checked(model, tools, version)
    schema = state_schema or AgentState
    builder: Any = StateGraph(
        _with_hook_input(schema) if pre_model_hook is not None else schema,
        context_schema=context_schema,
        input_schema=schema,
        output_schema=schema,
    )
    # Nodes in LangGraph's order (its drawings and get_graph() list them so).
    builder.add_node(
        "agent",
        _model_node(model, tool_list, prompt, name),
        input_schema=_model_input(schema) if pre_model_hook is not None else None,
    )
    if tool_node is not None:
        builder.add_node("tools", tool_node)
    first, decide = _add_hooks(builder, pre_model_hook, post_model_hook)
    after = "generate_structured_response" if response_format is not None else END
    if response_format is not None:
        builder.add_node(after, _structured_node(model, response_format))
        builder.add_edge(after, END)
    back = first if post_model_hook is not None else None
    _wire_tools(builder, tool_node, version, (decide, first, after, back))
    return builder.compile(
        checkpointer=checkpointer,
        store=store,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
        name=name or "LangGraph",
    )
