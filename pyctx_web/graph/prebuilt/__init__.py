"""LangGraph's prebuilt agent parts on pyctx_web's graph: ``ToolNode``, ``tools_condition``,
``ValidationNode``, ``create_react_agent`` and the human-interrupt types.

They work with LangChain's chat models, messages and tools, so this package needs
``langchain-core`` (``import pyctx_web.graph`` does not import it; importing this
package does). Under ``install_as_langgraph()`` it is ``langgraph.prebuilt``.
"""

from __future__ import annotations

from pyctx_web.graph.prebuilt._tool_call_stream import ToolCallTransformer
from pyctx_web.graph.prebuilt.chat_agent_executor import AgentState, create_react_agent
from pyctx_web.graph.prebuilt.interrupt import HumanInterrupt, HumanInterruptConfig, HumanResponse
from pyctx_web.graph.prebuilt.tool_node import (
    InjectedState,
    InjectedStore,
    ToolCallRequest,
    ToolNode,
    ToolRuntime,
    tools_condition,
)
from pyctx_web.graph.prebuilt.tool_validator import ValidationNode

__all__ = [
    "AgentState",
    "HumanInterrupt",
    "HumanInterruptConfig",
    "HumanResponse",
    "InjectedState",
    "InjectedStore",
    "ToolCallRequest",
    "ToolCallTransformer",
    "ToolNode",
    "ToolRuntime",
    "ValidationNode",
    "create_react_agent",
    "tools_condition",
]
