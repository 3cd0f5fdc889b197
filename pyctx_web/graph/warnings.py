"""LangGraph's deprecation warning classes, as ``langgraph.warnings`` names them.

pyctx_web keeps no deprecated forms, so its graph emits none of them; they are here for
code written against LangGraph that names them (in ``warnings.filterwarnings``,
``pytest.warns`` or its own warnings). A warning says since which LangGraph version
its subject is deprecated and in which it is expected to go.
"""

from __future__ import annotations

__all__ = [
    "LangGraphDeprecatedSinceV05",
    "LangGraphDeprecatedSinceV10",
    "LangGraphDeprecatedSinceV11",
    "LangGraphDeprecationWarning",
]


class LangGraphDeprecationWarning(DeprecationWarning):
    """Something deprecated in LangGraph ``since`` a version, to go in ``expected_removal``."""

    def __init__(
        self,
        message: str,
        *args: object,
        since: tuple[int, int],
        expected_removal: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(message, *args)
        self.message = message.rstrip(".")
        """What is deprecated, and what to use instead."""
        self.since = since
        """The LangGraph version (major, minor) that deprecated it."""
        self.expected_removal = expected_removal or (since[0] + 1, 0)
        """The LangGraph version expected to remove it (the next major by default)."""

    def __str__(self) -> str:
        since, removal = self.since, self.expected_removal
        return (
            f"{self.message}. Deprecated in LangGraph V{since[0]}.{since[1]}"
            f" to be removed in V{removal[0]}.{removal[1]}."
        )


class LangGraphDeprecatedSinceV05(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 0.5, to go in 2.0."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(0, 5), expected_removal=(2, 0))


class LangGraphDeprecatedSinceV10(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 1.0, to go in 2.0."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(1, 0), expected_removal=(2, 0))


class LangGraphDeprecatedSinceV11(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 1.1, to go in 3.0."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(1, 1), expected_removal=(3, 0))
