"""The names of the virtual nodes every graph has, and the tags of LangChain calls a run
leaves out of its streams, as in ``langgraph.constants``."""

from __future__ import annotations

from typing import Final

__all__ = ["END", "START", "TAG_HIDDEN", "TAG_NOSTREAM"]

START: Final = "__start__"
"""The virtual node a run starts from: ``add_edge(START, "first")``."""

END: Final = "__end__"
"""The virtual node a run ends at: ``add_edge("last", END)``."""

TAG_NOSTREAM: Final = "nostream"
"""A chat model call tagged with it (``config={"tags": [TAG_NOSTREAM]}``) streams no tokens
to ``stream_mode="messages"``."""

TAG_HIDDEN: Final = "langsmith:hidden"
"""A LangChain call tagged with it is hidden from LangSmith traces."""
