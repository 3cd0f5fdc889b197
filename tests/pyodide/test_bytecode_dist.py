"""build/dist's bytecode: pyctx_web and the standard library import from pycs compiled by
this very Pyodide, without compiling any source at import time."""

from __future__ import annotations

from typing import Any

from pytest_pyodide import run_in_pyodide


def test_registered_wheel_imports_from_bytecode(pyctx: Any) -> None:
    """The lock file's pyctx-web is sourceless: each module loads from its unchecked-hash pyc."""

    @run_in_pyodide
    def check(selenium: Any) -> None:
        import importlib.util
        import sys
        from pathlib import Path

        import pyctx_web
        import pyctx_web.graph
        import pyctx_web.server
        from pyctx_web._js import source

        package = Path(pyctx_web.__file__).parent
        assert not list(package.rglob("*.py"))
        compiled = list(package.rglob("*.pyc"))
        assert len(compiled) > 20
        for path in compiled:
            header = path.read_bytes()[:8]
            # This interpreter's magic number, and flags 0b01: hash-based, source never checked.
            assert header[:4] == importlib.util.MAGIC_NUMBER, path
            assert int.from_bytes(header[4:8], "little") == 0b01, path
        loaded = [m for name, m in sys.modules.items() if name.startswith("pyctx_web")]
        assert len(loaded) > 5
        for module in loaded:
            spec = module.__spec__
            assert spec is not None
            assert type(spec.loader).__name__ == "SourcelessFileLoader", module
            assert str(spec.origin).endswith(".pyc")
        assert "dispatch" in source("jsbridge")  # the package's data files are there too

    check(pyctx)


@run_in_pyodide
def test_standard_library_imports_from_bytecode(selenium: Any) -> None:
    """python_stdlib.zip holds this interpreter's pycs: the zip importer finds no source."""
    import email.parser
    import importlib.util
    import json
    import zipimport

    for module in (json, json.decoder, email.parser):
        loader: object = module.__spec__.loader if module.__spec__ else None
        assert isinstance(loader, zipimport.zipimporter)
        assert str(module.__file__).endswith(".pyc")
        assert loader.get_source(module.__name__) is None
    archive, _, inner = json.__file__.partition(".zip/")
    data = zipimport.zipimporter(archive + ".zip").get_data(inner)
    assert data[:4] == importlib.util.MAGIC_NUMBER
