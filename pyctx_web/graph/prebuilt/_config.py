"""The config a ToolNode's tool calls run with, and the runtime a config carries."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables.config import var_child_runnable_config

__all__ = ["runtime_in", "tool_config"]


def tool_config(config: Any) -> Any:
    """The run's ``config`` for a tool call, without LangGraph's private keys.

    Its callbacks are the node's own where the node has them (a traced run's node
    run, the messages and tools streams' handlers): the run's would skip them.
    """
    if not config:
        return None
    configurable = {
        k: v for k, v in (config.get("configurable") or {}).items() if not k.startswith("__pregel")
    }
    made = {**config, "configurable": configurable}
    around = var_child_runnable_config.get()
    if around and around.get("callbacks") is not None:
        made["callbacks"] = around["callbacks"]
    return made


def runtime_in(config: Any) -> Any:
    """The runtime LangGraph puts in a config's ``configurable`` (``__pregel_runtime``)."""
    return ((config or {}).get("configurable") or {}).get("__pregel_runtime")
