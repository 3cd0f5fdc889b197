"""Fixtures of the graph tests: both checkpointers, both node flavours."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver as InMemoryCheckpointer
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver as SQLiteCheckpointer


@pytest.fixture(params=["memory", "sqlite"])
def checkpointer(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Checkpointer]:
    """An InMemoryCheckpointer, or an SQLiteCheckpointer on a fresh file."""
    if request.param == "memory":
        yield InMemoryCheckpointer()
        return
    saver = SQLiteCheckpointer(tmp_path / "checkpoints.db")
    yield saver
    saver.close()


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    """Whether the test's nodes are plain functions or coroutine functions."""
    return str(request.param)
