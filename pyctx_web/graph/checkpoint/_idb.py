"""The IndexedDB connection the IndexedDB checkpointer and the IndexedDB store share.

Each database has its JavaScript file (``js/indexeddb.js``, ``js/idbstore.js``),
a function of the shared helpers of ``js/idb.js`` that gives its layout (what an
upgrade creates) and its operations. The helpers open the database at its
version; a connection closes itself when another one upgrades or deletes the
database; every operation is one transaction whose outcome comes back as JSON
text (``{"status": "ok", "value": ...}``, ``"closed"``, ``"error"`` or the
file's own), so no Python object is handed to JavaScript. :class:`Database`
opens on first use, reopens once when an operation finds its connection closed,
and raises the owner's storage error when IndexedDB fails.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from pyctx_web._env import IN_BROWSER, IN_PYODIDE
from pyctx_web._js import load_js
from pyctx_web.jsonparse import EVENT_CHARS, STORED_CHARS, STORED_DEPTH, parse_json

__all__ = ["Database", "StorageError", "failed", "indexeddb_missing"]

StorageError = Callable[[str, str], Exception]
"""Makes the owner's error from what was attempted and what IndexedDB reported."""

_scripts: dict[str, Any] = {}


def _script(name: str) -> Any:
    """The operations of JavaScript file ``name``, built on the shared helpers, made once."""
    if name not in _scripts:
        if "idb" not in _scripts:
            _scripts["idb"] = load_js("idb")
        _scripts[name] = load_js(name)(_scripts["idb"])
    return _scripts[name]


def indexeddb_missing() -> str | None:
    """None where IndexedDB is at hand (Pyodide in a browser), else what this runtime is."""
    if IN_BROWSER:
        import js

        if getattr(js, "indexedDB", None) is not None:
            return None
        return "a browser context without IndexedDB (an opaque origin or storage disabled)"
    if IN_PYODIDE:
        return "Pyodide in Node, which has no IndexedDB"
    return f"{sys.implementation.name} on {sys.platform!r}"


def failed(outcome: dict[str, Any]) -> str:
    """What IndexedDB reported for a failed operation: ``"<name>: <message>"``."""
    return f"{outcome.get('name', 'Error')}: {outcome.get('message', '')}"


class Database:
    """The IndexedDB database ``name`` at ``version``, through JavaScript file ``script``.

    ``error`` makes the owner's error; ``source`` names the owner's records in the
    message of a stored text that does not parse.
    """

    def __init__(
        self, script: str, name: str, version: int, *, error: StorageError, source: str
    ) -> None:
        self.name = name
        self._script = script
        self._version = version
        self._error = error
        self._source = source
        self._conn: Any = None
        self._opening: asyncio.Lock | None = None

    async def connection(self) -> Any:
        """The open connection: opened now if there is none or the last one closed."""
        if self._conn is not None and not self._conn.closed:
            return self._conn
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self._conn is None or self._conn.closed:
                opened = await _script(self._script).open(self.name, self._version)
                if isinstance(opened, str):
                    reason = parse_json(opened, source="the open error", max_chars=EVENT_CHARS)
                    raise self._error(f"open the IndexedDB database {self.name!r}", failed(reason))
                self._conn = opened
        return self._conn

    def close(self) -> None:
        """Close the connection; the next call opens it again."""
        if self._conn is not None:
            _script(self._script).close(self._conn)
            self._conn = None

    async def call(self, operation: str, *args: Any, what: str) -> dict[str, Any]:
        """The outcome of ``operation(connection, *args)``, reopening once if the connection
        was closed under it; ``what`` is what the operation does, for its errors."""
        for _ in range(2):
            conn = await self.connection()
            try:
                text = await getattr(_script(self._script), operation)(conn, *args)
                outcome: dict[str, Any] = parse_json(
                    text, source=self._source, max_chars=STORED_CHARS, max_depth=STORED_DEPTH
                )
            except Exception as exc:  # a JavaScript exception outside the transaction
                raise self._error(what, str(exc)) from exc
            if outcome["status"] != "closed":
                return outcome
            self._conn = None
        raise self._error(what, "the database connection keeps closing")
