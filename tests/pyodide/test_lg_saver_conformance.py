"""langgraph-checkpoint-conformance's async suite on pyctx_web's savers inside Pyodide.

The suite (from the suites tier's venv, ``./build.sh suites``) runs through
``install_as_langgraph()`` on the IndexedDB saver in Chromium and on the SQLite saver in
Node, with the langchain-core of build/dist.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

SITE = Path(__file__).resolve().parents[2] / "build" / "cache" / "suites" / "venv-pyctx" / "lib"

_RUN = """
import base64, io, json, sys, zipfile
zipfile.ZipFile(io.BytesIO(base64.b64decode("%s"))).extractall("/tmp/lgconf")
sys.path.insert(0, "/tmp/lgconf")
from pyctx_web.graph import install_as_langgraph
install_as_langgraph()
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.report import ProgressCallbacks

outcomes = {}
def record(capability, name, passed, error):
    outcomes[f"{capability}::{name}"] = "passed" if passed else (error or "failed")[-600:]

counter = [0]
async def saver():
    if "%s" == "indexeddb":
        from pyctx_web.graph._lgsaver.indexeddb import IndexedDBSaver
        counter[0] += 1
        found = IndexedDBSaver(f"lg-conformance-{counter[0]}")
        yield found
        found.close()
    else:
        from pyctx_web.graph._lgsaver.sqlite import SqliteSaver
        found = SqliteSaver(":memory:")
        yield found
        found.close()

progress = ProgressCallbacks(on_test_result=record)
await validate(checkpointer_test(name="pyodide")(saver), progress=progress)
json.dumps(outcomes)
"""


def _conformance_zip() -> str:
    folders = sorted(SITE.glob("python*/site-packages/langgraph/checkpoint/conformance"))
    if not folders:
        pytest.skip("the suites tier's venv is absent: run ./build.sh suites first")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in folders[-1].rglob("*.py"):
            archive.write(path, path.relative_to(folders[-1].parents[2]))
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def test_conformance_async_suite_passes_in_pyodide(pyctx_module: Any) -> None:
    """Every conformance test passes: IndexedDB in Chromium, SQLite in Node."""
    kind = "sqlite" if pyctx_module.browser == "node" else "indexeddb"
    pyctx_module.load_package(["langchain-core"])
    outcomes = json.loads(pyctx_module.run_async(_RUN % (_conformance_zip(), kind)))
    failed = {name: why for name, why in outcomes.items() if why != "passed"}
    assert failed == {}
    assert len(outcomes) == 58
