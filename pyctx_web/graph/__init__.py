"""Interruptible state graphs with LangGraph's names and behaviour, on CPython and in Pyodide.

Build a :class:`StateGraph`, compile it with a checkpointer, and run it::

    from pyctx_web.graph import END, START, StateGraph
    from pyctx_web.graph.checkpoint.memory import InMemorySaver
    from pyctx_web.graph.types import Command, interrupt

    class State(TypedDict):
        question: str
        answer: str

    def ask(state: State) -> dict[str, str]:
        return {"answer": interrupt(state["question"])}

    graph = StateGraph(State).add_node("ask", ask).add_edge(START, "ask").compile(
        checkpointer=InMemorySaver()
    )
    config = {"configurable": {"thread_id": "1"}}
    graph.invoke({"question": "name?"}, config)["__interrupt__"]  # [Interrupt(value='name?', ...)]
    graph.invoke(Command(resume="Ada"), config)                     # {..., 'answer': 'Ada'}

The modules mirror LangGraph's: :mod:`.state`, :mod:`.constants`, :mod:`.types`,
:mod:`.errors`, :mod:`.config`, :mod:`.checkpoint.memory`, :mod:`.checkpoint.sqlite`
(and :mod:`.checkpoint.indexeddb` in a browser). :func:`install_as_langgraph`
registers them under LangGraph's names. :mod:`.runtime` holds LangGraph's
``Runtime``, through which a node also reaches what pyctx_web adds:
:mod:`.tools`, :mod:`.middleware` and :mod:`.memory`.

The current run and task are found through :class:`pyctx_web.AsyncLocalStorage`,
so ``interrupt()`` works under any concurrency.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pyctx_web.graph._alias import install_as_langgraph
    from pyctx_web.graph.constants import END, START
    from pyctx_web.graph.message import MessagesState, add_messages
    from pyctx_web.graph.state import StateGraph

__all__ = ["END", "START", "MessagesState", "StateGraph", "add_messages", "install_as_langgraph"]

_HOMES: Final = {
    "END": ("pyctx_web.graph.constants", "END"),
    "START": ("pyctx_web.graph.constants", "START"),
    "MessagesState": ("pyctx_web.graph.message", "MessagesState"),
    "StateGraph": ("pyctx_web.graph.state", "StateGraph"),
    "add_messages": ("pyctx_web.graph.message", "add_messages"),
    "install_as_langgraph": ("pyctx_web.graph._alias", "install_as_langgraph"),
}
"""The public names, imported when first used: importing a submodule stays cheap."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home[0]), home[1])
    globals()[name] = value  # later uses skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
