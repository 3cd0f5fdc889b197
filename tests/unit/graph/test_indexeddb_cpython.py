"""IndexedDBSaver on CPython: the module imports, and building one says what it needs."""

from __future__ import annotations

import pytest

from pyctx_web.errors import JsUnavailableError, PyctxError
from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver


def test_indexeddb_checkpointer_needs_pyodide_in_a_browser() -> None:
    """On CPython, building an IndexedDBSaver raises JsUnavailableError naming its needs."""
    with pytest.raises(
        JsUnavailableError,
        match=(
            r"^IndexedDBSaver needs Pyodide in a browser \(a page or a Web Worker\) "
            r"with IndexedDB; this is cpython on '[^']+'\. Use SqliteSaver "
            r"elsewhere\.$"
        ),
    ) as info:
        IndexedDBSaver()
    assert isinstance(info.value, PyctxError)
