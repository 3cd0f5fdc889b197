"""``langgraph.checkpoint.memory``: the in-memory saver with LangGraph's saver interface too.

:class:`InMemorySaver` is :class:`pyctx_web.graph.checkpoint.memory.InMemorySaver` that
also takes LangGraph's ``aput(config, checkpoint, metadata, new_versions)``,
``aput_writes``, ``aget_tuple``, ``alist``, ``adelete_thread`` and their sync forms,
and LangGraph's constructor (``serde``, ``factory``) and context-manager use. A graph
stores its steps in it as in the plain one. :class:`PersistentDict` is the dict LangGraph
gives as ``factory`` to keep a saver's threads in a file.
"""

from __future__ import annotations

import os
import pickle
from collections import defaultdict
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from pyctx_web._homes import publish
from pyctx_web.graph._lgsaver.saver import LangGraphSaver
from pyctx_web.graph.checkpoint import memory

__all__ = ["InMemorySaver", "MemorySaver", "PersistentDict"]


class PersistentDict(defaultdict[Any, Any]):
    """A dict kept in memory, written to ``filename`` (pickled) by :meth:`sync` and :meth:`close`.

    :meth:`load` reads the file back into it. As a context manager it closes when the
    block ends.
    """

    def __init__(self, *args: Any, filename: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.filename = filename
        """The file the dict is written to."""

    def sync(self) -> None:
        """Write the dict to its file, whole: to a temporary file first, then renamed over it."""
        temporary = self.filename + ".tmp"
        try:
            with open(temporary, "wb") as file:
                pickle.dump(dict(self), file, 2)
        except BaseException:
            os.remove(temporary)
            raise
        os.replace(temporary, self.filename)

    def load(self) -> None:
        """Add the items written to the file (none when it is empty)."""
        with open(self.filename, "rb") as file:
            try:
                self.update(pickle.load(file))
            except EOFError:
                return

    def close(self) -> None:
        """Write the dict to its file, then empty it."""
        self.sync()
        self.clear()

    def __enter__(self) -> PersistentDict:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class InMemorySaver(LangGraphSaver, memory.InMemorySaver):  # type: ignore[misc]  # the graph's and LangGraph's forms
    """Checkpoints in a dict, read and written by the graph or through LangGraph's interface.

    ``serde`` is the serializer of LangGraph's interface; ``factory`` makes the dict
    the threads are kept in (a :class:`PersistentDict` factory keeps them in a file,
    written when the saver's ``with`` block ends). :attr:`stack` closes what the saver
    opened when it is used as a context manager (sync or async).
    """

    def __init__(
        self,
        *,
        serde: Any = None,
        factory: Callable[[], dict[Any, Any]] = defaultdict,
    ) -> None:
        super().__init__(serde=serde)
        self.stack = ExitStack()
        """What the saver closes when its ``with`` block ends."""
        if factory is not defaultdict:
            threads = factory()
            self._threads = threads
            if hasattr(threads, "__exit__"):
                self.stack.enter_context(threads)  # type: ignore[arg-type]  # a closable dict

    async def _lg_thread_ids(self) -> list[str]:
        return list(self._threads)

    def __enter__(self) -> InMemorySaver:
        self.stack.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> bool | None:
        return self.stack.__exit__(*exc_info)

    async def __aenter__(self) -> InMemorySaver:
        return self.__enter__()

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        return self.__exit__(*exc_info)


publish("pyctx_web.graph.saver", InMemorySaver)

MemorySaver = InMemorySaver
"""LangGraph's other name for :class:`InMemorySaver`."""
