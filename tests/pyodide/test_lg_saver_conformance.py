"""langgraph-checkpoint-conformance's async suite on pyctx_web's savers inside Pyodide.

The suite (the pinned wheel ``./build.sh setup`` keeps in build/cache/conformance) runs
through ``install_as_langgraph()`` on the IndexedDB saver in Chromium and on the SQLite
saver in Node, with the langchain-core of build/dist.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
from pathlib import Path
from typing import Any

WHEELS = Path(__file__).resolve().parents[2] / "build" / "cache" / "conformance"
_PACKAGE = "langgraph/checkpoint/conformance/"

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
    """The conformance package's modules from the pinned wheel, as a base64 zip."""
    wheels = sorted(WHEELS.glob("langgraph_checkpoint_conformance-*.whl"))
    if not wheels:
        raise FileNotFoundError(
            f"no langgraph-checkpoint-conformance wheel in {WHEELS}: run ./build.sh setup"
        )
    buffer = io.BytesIO()
    with zipfile.ZipFile(wheels[-1]) as wheel, zipfile.ZipFile(buffer, "w") as archive:
        for name in wheel.namelist():
            if name.startswith(_PACKAGE) and name.endswith(".py"):
                archive.writestr(name, wheel.read(name))
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def test_conformance_async_suite_passes_in_pyodide(pyctx_module: Any) -> None:
    """Every conformance test passes: IndexedDB in Chromium, SQLite in Node."""
    kind = "sqlite" if pyctx_module.browser == "node" else "indexeddb"
    pyctx_module.load_package(["langchain-core"])
    outcomes = json.loads(pyctx_module.run_async(_RUN % (_conformance_zip(), kind)))
    failed = {name: why for name, why in outcomes.items() if why != "passed"}
    assert failed == {}
    assert len(outcomes) == 58
