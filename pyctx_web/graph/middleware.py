"""Middleware: change every run of a graph at its hook points, with LangChain v1's names.

Subclass :class:`AgentMiddleware` and override the hooks you need
(``before_agent``, ``after_agent``, ``awrap_tool_call``, and pyctx_web's
``awrap_node_call``); give instances to ``compile(middleware=[...])``, first
listed outermost. :class:`HumanInTheLoopMiddleware` pauses a run for a person
to approve, edit or reject tool calls before they run::

    class Audit(AgentMiddleware):
        async def awrap_tool_call(self, request, handler):
            print("calling", request.tool_call["name"])
            return await handler(request)

    graph = builder.compile(
        InMemorySaver(),
        tools=[send_email],
        middleware=[Audit(), HumanInTheLoopMiddleware(interrupt_on={"send_email": True})],
    )

The hooks' rules are in :mod:`pyctx_web.graph._runctx.middleware`, the review's
in :class:`HumanInTheLoopMiddleware`.
"""

from __future__ import annotations

from pyctx_web.graph._runctx.hitl import DECISIONS, HumanInTheLoopMiddleware, ReviewConfig
from pyctx_web.graph._runctx.middleware import AgentMiddleware, NodeCallRequest, ToolCallRequest

__all__ = [
    "DECISIONS",
    "AgentMiddleware",
    "HumanInTheLoopMiddleware",
    "NodeCallRequest",
    "ReviewConfig",
    "ToolCallRequest",
]
