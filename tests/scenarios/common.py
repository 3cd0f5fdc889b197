"""What the scenario modules share: the storage under test, the marks runners read, fixtures.

A scenario is a ``scenario_<behaviour>`` function of a module of tests/scenarios/.
It takes no argument, or one :class:`CheckpointerFactory` (then the runners give
it a fresh storage of each kind). :func:`requires` and :func:`pyodide_only` mark
what a scenario needs; the runners (tests/unit/test_scenarios.py and
tests/pyodide/test_scenarios.py) read the marks and skip where they are not met.

This module imports only pyctx_web and the standard library: it is copied into
Pyodide with the scenario modules.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.tools import tool

PERSISTENT = "persistent"
"""A new checkpointer object over the same storage sees everything stored before."""
FAILURE = "failure"
"""The storage can be made to fail a write inside its transaction."""
NON_TEXT = "non_text"
"""A stored row can hold a value that is not text, as a damaged database would."""


class CheckpointerFactory(Protocol):
    """One fresh storage under test, and the hooks scenarios use on it."""

    capabilities: frozenset[str]
    """Which of PERSISTENT, FAILURE and NON_TEXT the storage offers."""

    def __call__(self) -> Checkpointer:
        """Return a checkpointer object over this storage (a new one when PERSISTENT)."""
        ...

    async def corrupt(
        self,
        thread_id: str,
        checkpoint_id: str,
        *,
        write: tuple[str, str] | None = None,
        text: str | None = None,
    ) -> None:
        """Replace the stored data of a checkpoint (or of its write ``(task_id, kind)``).

        The new data is ``text``, or a value that is not text when ``text`` is
        ``None`` (NON_TEXT).
        """
        ...

    async def fail_writes_with(self, data: str) -> None:
        """From now on, storing a checkpoint or a write whose data is ``data`` fails (FAILURE)."""
        ...

    async def aclose(self) -> None:
        """Close every checkpointer made and drop the storage (runners call it at the end)."""
        ...


F = TypeVar("F", bound=Callable[..., Any])
E = TypeVar("E", bound=BaseException)


def requires(*capabilities: str) -> Callable[[F], F]:
    """Mark a scenario as needing storage capabilities (see :data:`PERSISTENT`...)."""

    def mark(fn: F) -> F:
        # A mark on the function object, read back by requirements(); F declares no such field.
        fn.requires = frozenset(capabilities)  # type: ignore[attr-defined]
        return fn

    return mark


def requirements(scenario: Callable[..., Any]) -> frozenset[str]:
    """The storage capabilities a scenario needs."""
    found: frozenset[str] = getattr(scenario, "requires", frozenset())
    return found


def pyodide_only(fn: F) -> F:
    """Mark a scenario that needs JavaScript; the CPython runner skips it."""
    # A mark on the function object, read back by the runners; F declares no such field.
    fn.pyodide_only = True  # type: ignore[attr-defined]
    return fn


# --- helpers of the scenarios ---------------------------------------------------------------


async def raised(kind: type[E], awaitable: Awaitable[Any]) -> E:
    """The ``kind`` error awaiting ``awaitable`` raises; AssertionError when it raises none."""
    try:
        await awaitable
    except kind as error:
        return error
    raise AssertionError(f"{kind.__name__} was not raised")


async def until(check: Callable[[], bool]) -> None:
    """Return once ``check()`` holds; AssertionError when it still does not after 50,000 turns
    of the event loop."""
    # Real storage (IndexedDB) answers in its own time: on a loaded machine 1,000 turns
    # passed before a run had started. Bare turns, not timed sleeps: in Chromium a loop of
    # 1 ms sleeps never let the run start.
    for _ in range(50_000):
        if check():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


# --- fixtures of the run scenarios and tests ------------------------------------------------


@dataclass
class SessionData:
    """The typed context of the session graph."""

    user: str = "anonymous"
    session_count: int = 0


@tool(
    parameters={
        "type": "object",
        "properties": {"confirm": {"type": "boolean"}},
        "required": ["confirm"],
    }
)
def dangerous_action(args: dict[str, Any], runtime: Runtime[Any]) -> str:
    """Do something irreversible, or cancel the run when not confirmed."""
    if not args["confirm"]:
        runtime.cancel("not confirmed")
        return "cancelling"
    return "done"
