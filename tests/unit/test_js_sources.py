"""pyctx_web's JavaScript: one expression per file, and a same-origin ES module of all of them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pyctx_web._js import NAMES, module_source, source
from pyctx_web.errors import ArgumentValueError


def test_module_exports_every_file_under_its_name(tmp_path: Path) -> None:
    """The module exports each file's value under its name, the loader's two functions and the
    agent server's fetch functions, and Node parses it."""
    text = module_source()
    for name in NAMES:
        assert f"export const {name} =" in text
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    module = tmp_path / "pyctx_web.mjs"
    module.write_text(text)
    names = subprocess.run(
        [
            node,
            "--input-type=module",
            "-e",
            f"import * as m from {str(module)!r}; console.log(Object.keys(m).sort().join(','))",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    loader = ["loadPyctxWeb", "resumePyctxWeb"]
    loader += ["createAgentServerFetch", "forwardAgentFetch", "serveAgentServer"]
    assert names == ",".join(sorted([*NAMES, *loader]))


def test_each_file_is_one_expression(tmp_path: Path) -> None:
    """Each file evaluates to a value, as pyodide.code.run_js needs."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    for name in NAMES:
        script = tmp_path / f"{name}.js"
        script.write_text(source(name))
        kind = subprocess.run(
            [
                node,
                "-e",
                "const vm = require('vm'); const fs = require('fs'); console.log(typeof "
                f"vm.runInNewContext(fs.readFileSync({str(script)!r}, 'utf8'), {{Symbol}}))",
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()
        assert kind in {"function", "object"}, (name, kind)


def test_unknown_name_is_refused() -> None:
    """Asking for a file that does not exist names the ones that do."""
    with pytest.raises(
        ArgumentValueError,
        match=r"^no JavaScript named 'nope'; "
        r"known: idb, indexeddb, idbstore, jsbridge, tabs, serverstore$",
    ):
        source("nope")


def test_importing_the_sources_module_leaves_importlib_resources_unimported() -> None:
    """Importing pyctx_web._js (as the IndexedDB saver does at a worker's start) does not import
    importlib.resources, which only reading a file needs."""
    code = "import sys, pyctx_web._js; print('importlib.resources' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "False"
