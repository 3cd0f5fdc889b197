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
