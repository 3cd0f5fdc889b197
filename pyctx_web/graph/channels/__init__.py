"""State keys that keep their value differently, as ``langgraph.channels`` names them.

Put in a state key's annotation, as LangGraph's channel classes are::

    class State(TypedDict):
        jump_to: NotRequired[Annotated[str | None, EphemeralValue]]
        calls: NotRequired[Annotated[int, UntrackedValue]]

- :class:`EphemeralValue`: the value written by a step is seen by the next step
  only; a step that does not write the key clears it.
- :class:`UntrackedValue`: the value lives for the run only; checkpoints never
  hold it, so a run that starts from a checkpoint (a new ``invoke`` on the
  thread, a resume) starts without it.

Under ``install_as_langgraph()`` this module is ``langgraph.channels`` and its
``ephemeral_value`` and ``untracked_value`` submodules. LangGraph's other channel
classes are not provided: a key with a reducer is ``Annotated[T, reducer]``.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["EphemeralValue", "UntrackedValue"]


class _KeyKind:
    """A state key's kind, given as the class or an instance (``EphemeralValue(int)``)."""

    __pyctx_channel__: ClassVar[str]
    """What the engine reads from a key's annotation to tell the kind."""

    def __init__(self, typ: Any = Any, guard: bool = True) -> None:
        self.typ = typ
        """The key's value type, as given."""
        self.guard = guard
        """Whether a step may write the key once only (LangGraph's ``guard``)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.typ!r})"


class EphemeralValue(_KeyKind):
    """A state key whose value lasts one step: written by a step, cleared after the next."""

    __pyctx_channel__ = "ephemeral"


class UntrackedValue(_KeyKind):
    """A state key whose value lives for the run only and is never checkpointed."""

    __pyctx_channel__ = "untracked"
