"""``langgraph.prebuilt``'s ``ToolCallTransformer``: the event-stream transformer of tool calls.

LangChain's ``create_agent`` gives it to ``compile(transformers=[...])`` first.
pyctx_web's graphs have no ``stream_events(version="v3")`` (see
:mod:`pyctx_web.graph.stream`): the class is here to be named and subclassed; making
one raises :class:`~pyctx_web.errors.UsageError`.
"""

from __future__ import annotations

from pyctx_web._homes import publish
from pyctx_web.graph.stream import MessagesTransformer, StreamTransformer

__all__ = ["ToolCallTransformer"]


class ToolCallTransformer(MessagesTransformer, StreamTransformer):
    """LangGraph's transformer of a run's tool calls into a stream of tool-call handles."""


publish("pyctx_web.graph.prebuilt", ToolCallTransformer)
