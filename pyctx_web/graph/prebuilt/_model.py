"""The chat model of ``create_react_agent``: found inside a binding or sequence, tools bound once.

A model may come with tools bound already (``model.bind_tools(tools)``) or inside a
``RunnableSequence``; the agent then checks the bound tools are its tools instead
of binding them again. Also the check that a chat history has no AI tool call left
without its ToolMessage, which a model provider would refuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langchain_core.runnables import RunnableBinding, RunnableSequence
from langchain_core.tools import BaseTool

__all__ = ["_get_model", "_should_bind_tools", "_validate_chat_history"]


def _get_model(model: Any) -> BaseChatModel:
    """The chat model in ``model``: itself, the bound model of a binding, a sequence's first."""
    if isinstance(model, RunnableSequence):
        model = next(
            (step for step in model.steps if isinstance(step, (RunnableBinding, BaseChatModel))),
            model,
        )
    if isinstance(model, RunnableBinding):
        model = model.bound
    if not isinstance(model, BaseChatModel):
        raise TypeError(
            f"Expected `model` to be a ChatModel or RunnableBinding (e.g. model.bind_tools(...)),"
            f" got {type(model)}"
        )
    return model


def _bound_tool_name(spec: Any) -> str | None:
    if not isinstance(spec, dict):
        return None
    if "function" in spec and isinstance(spec["function"], dict):
        return spec["function"].get("name")
    return spec.get("name")


def _should_bind_tools(model: Any, tools: Sequence[BaseTool | dict[str, Any]]) -> bool:
    """Whether the agent must bind ``tools`` to ``model``; raises if its bound tools differ."""
    if isinstance(model, RunnableSequence):
        model = next(
            (step for step in model.steps if isinstance(step, (RunnableBinding, BaseChatModel))),
            model,
        )
    if not isinstance(model, RunnableBinding) or "tools" not in model.kwargs:
        return True
    bound = model.kwargs["tools"]
    if len(tools) != len(bound):
        raise ValueError(
            "Number of tools in the model.bind_tools() and tools passed to create_react_agent"
            " must match"
        )
    names = {tool.name if isinstance(tool, BaseTool) else _bound_tool_name(tool) for tool in tools}
    missing = {_bound_tool_name(spec) for spec in bound} - names
    if missing:
        raise ValueError(f"Missing tools '{missing}' in the model.bind_tools()")
    return False


def _validate_chat_history(messages: Sequence[AnyMessage]) -> None:
    """Raise ValueError when an AI message's tool call has no ToolMessage answering it."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    unanswered = [
        call
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
        if call["id"] not in answered
    ]
    if unanswered:
        raise ValueError(
            "Found AIMessages with tool_calls that do not have a corresponding ToolMessage."
            f" Here are the first few of those tool calls: {unanswered[:3]}.\n\n"
            "Every tool call (LLM requesting to call a tool) in the message history MUST have"
            " a corresponding ToolMessage (result of a tool invocation to return to the LLM)"
            " - this is required by most LLM providers."
        )
