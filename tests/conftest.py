"""Fixtures shared by the CPython test tiers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pyctx_web.execution import execution_context_storage


@pytest.fixture(autouse=True)
def clean_context() -> Iterator[None]:
    """Run every test with no execution context and restore the previous one afterwards."""
    with execution_context_storage.scope(None):
        yield


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test with its tier (unit, differential, pyodide or e2e), taken from its folder."""
    for item in items:
        tier = item.path.parent.relative_to(item.config.rootpath / "tests").parts[0]
        if tier in {"unit", "differential", "pyodide", "e2e"}:
            item.add_marker(tier)
