"""IndexedDBSaver on CPython: the module imports, and building one says what it needs."""

from __future__ import annotations

import pytest

from pyctx_web.errors import JsUnavailableError, PyctxError
from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver


def test_indexeddb_checkpointer_needs_pyodide_in_a_browser() -> None:
    """On CPython, building an IndexedDBSaver raises JsUnavailableError naming its needs."""
    with pytest.raises(JsUnavailableError, match="needs Pyodide in a browser") as info:
        IndexedDBSaver()
    assert isinstance(info.value, PyctxError)
    assert "SqliteSaver" in str(info.value)
