"""The names of the virtual nodes every graph has, as in ``langgraph.constants``."""

from __future__ import annotations

from typing import Final

__all__ = ["END", "START"]

START: Final = "__start__"
"""The virtual node a run starts from: ``add_edge(START, "first")``."""

END: Final = "__end__"
"""The virtual node a run ends at: ``add_edge("last", END)``."""
