"""What a program gets for the LangGraph parts pyctx_web does not provide (the README's table)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _import_error(statement: str) -> str:
    """The last line of what ``statement`` prints to stderr after install_as_langgraph()."""
    code = f"""
    from pyctx_web.graph import install_as_langgraph
    install_as_langgraph()
    {statement}
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=60,
    )
    assert done.returncode == 1
    return done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("statement", "error"),
    [
        (
            "from langgraph.managed import RemainingSteps",
            "ModuleNotFoundError: No module named 'langgraph.managed'",
        ),
        (
            "from langgraph.store.postgres import PostgresStore",
            "ModuleNotFoundError: No module named 'langgraph.store.postgres'",
        ),
        (
            "from langgraph.store.redis import RedisStore",
            "ModuleNotFoundError: No module named 'langgraph.store.redis'",
        ),
        (
            "from langgraph.store.sqlite.aio import AsyncSqliteStore",
            "ModuleNotFoundError: No module named 'langgraph.store.sqlite.aio'; "
            "'langgraph.store.sqlite' is not a package",
        ),
    ],
)
def test_a_store_or_managed_value_not_provided_fails_to_import(statement: str, error: str) -> None:
    """The managed values and the Postgres, Redis and async SQLite stores raise
    ModuleNotFoundError naming the module."""
    assert _import_error(statement) == error
