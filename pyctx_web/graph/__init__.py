"""Interruptible state graphs with LangGraph's names and behaviour, on CPython and in Pyodide.

Where things are, bottom layer first; a module imports only from its own layer
and those below (``tests/unit/test_structure.py`` holds it to this):

1. :mod:`.errors` (the exceptions), :mod:`.constants` (``START``, ``END``) and
   ``_values.py`` (``Command``, ``Send``, ``Interrupt``, ``StateSnapshot``... which
   :mod:`.types` exports and whose ``__module__`` it is).
2. :mod:`.checkpoint` -- the ``Checkpointer`` contract (:mod:`.checkpoint.base`) and
   the savers: :mod:`.checkpoint.memory`, :mod:`.checkpoint.sqlite`,
   :mod:`.checkpoint.indexeddb` (in a browser).
3. ``_engine/`` -- what runs a compiled graph: its spec and channels, the step loop
   (``loop.py``) with its checkpoint access (``checkpoints.py``) and node calls
   (``calling.py``), resume, records and serde, a call's options (``options.py``).
   It declares ``RunExtension`` (``extension.py``), the interface through which the
   layer above plugs in, and never imports that layer.
4. ``_runctx/`` -- what pyctx_web adds to a run: services, a run's log and life,
   middleware (human in the loop), tools and their JSON Schemas, memory.
5. The public facades, as LangGraph names them: :mod:`.state` (``StateGraph``,
   ``CompiledStateGraph``), :mod:`.types`, :mod:`.config`, :mod:`.message`,
   :mod:`.func`, :mod:`.runtime` (``Runtime``, through which a node also reaches
   pyctx_web's :mod:`.tools`, :mod:`.middleware` and :mod:`.memory`),
   :mod:`.drawing`; and the compiled graph's own parts: ``_compiled.py`` (the
   class), ``_runs.py`` (its runs and engines), ``_states.py`` (its threads'
   state), ``_subgraph.py``, ``_sync.py`` (the sync forms), ``_waiting.py``,
   ``_functional.py`` (the graph behind ``@entrypoint``). :func:`install_as_langgraph`
   (``_alias.py``) registers the public modules under LangGraph's names.

:mod:`pyctx_web.server` sits above all of these; :mod:`pyctx_web.context`,
:mod:`pyctx_web.execution` and :mod:`pyctx_web.jsbridge` below.

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
