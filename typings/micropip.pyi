"""Pyodide's ``micropip``, as far as the Pyodide tier uses it (only inside Pyodide)."""

from collections.abc import Coroutine, Sequence
from typing import Any

class PackageMetadata:
    """An installed package, as ``list()`` reports it."""

    name: str
    version: str
    source: str

def install(requirements: str | Sequence[str], /, **options: Any) -> Coroutine[Any, Any, None]: ...
def list() -> dict[str, PackageMetadata]: ...
