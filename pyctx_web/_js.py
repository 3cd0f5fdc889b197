"""The JavaScript that pyctx_web runs inside Pyodide, and the two ways it gets there.

The package ships its JavaScript as files in ``pyctx_web/js/``, each one
expression. :func:`load_js` returns the value of one of them:

* when the host registered the same-origin ES module of :func:`module_source`
  as the Pyodide JS module ``pyctx_web_js``, it is taken from there: this way
  works under a Content-Security-Policy without ``'unsafe-eval'``::

      // the page or worker, before Python uses pyctx_web
      pyodide.registerJsModule("pyctx_web_js", await import("/pyctx_web.mjs"));

* otherwise the file is evaluated with ``pyodide.code.run_js`` (Node, tests,
  pages whose policy allows eval).

``/pyctx_web.mjs`` is what :func:`module_source` returns; ``demo/serve.py``
serves it, and ``./build.sh dist`` writes it to ``build/dist/pyctx_web.mjs``. Its
``loadPyctxWeb(pyodide, { wheelURL })`` installs the wheel and registers the module.
"""

from __future__ import annotations

import re
from typing import Any, Final

from pyctx_web.errors import ArgumentValueError

__all__ = ["JS_MODULE_NAME", "MODULES", "NAMES", "load_js", "module_source", "source"]

JS_MODULE_NAME: Final = "pyctx_web_js"
"""The name under which a host registers :func:`module_source`'s module."""

NAMES: Final = ("idb", "indexeddb", "idbstore", "jsbridge", "tabs", "serverstore")
"""The JavaScript files of the package, by name. ``indexeddb``, ``idbstore`` and
``serverstore`` are functions of ``idb``'s value, the IndexedDB connection helpers they share."""


MODULES: Final = ("agentfetch",)
"""The ES modules of the package (``js/<name>.mjs``, no imports of their own) that ``loader.mjs``
re-exports: :func:`module_source` puts each one's text in place of its re-export line."""

_REEXPORT = re.compile(r'^export \{[^}]*\} from "\./(\w+)\.mjs";\n', re.MULTILINE)


def source(name: str) -> str:
    """The JavaScript expression of file ``name`` (one of :data:`NAMES`)."""
    if name not in NAMES:
        raise ArgumentValueError(f"no JavaScript named {name!r}; known: {', '.join(NAMES)}")
    return _package_text(f"{name}.js")


def _package_text(name: str) -> str:
    # Imported here: a host that registered the module (every browser page) never reads
    # these files, and importlib.resources costs milliseconds to import in Pyodide.
    from importlib import resources

    return resources.files("pyctx_web").joinpath("js", name).read_text(encoding="utf-8")


def module_source() -> str:
    """An ES module that exports every file of :data:`NAMES` under its name, and
    ``loadPyctxWeb`` (``js/loader.mjs``), which installs the wheel and registers the module,
    with the exports of :data:`MODULES` (``createAgentServerFetch``, ``serveAgentServer``).
    """
    exports = [f"export const {name} =\n{source(name).strip().rstrip(';')};\n" for name in NAMES]
    loader = _REEXPORT.sub(_inlined, _package_text("loader.mjs"))
    header = "// pyctx_web's JavaScript, for hosts whose policy forbids eval.\n"
    return header + "\n".join([*exports, loader])


def _inlined(match: re.Match[str]) -> str:
    name = match.group(1)
    if name not in MODULES:
        raise ArgumentValueError(f"loader.mjs re-exports {name}.mjs, which MODULES does not name")
    return _package_text(f"{name}.mjs")


def load_js(name: str) -> Any:
    """The value of JavaScript file ``name`` in Pyodide: from the host's module, or evaluated."""
    try:
        import pyctx_web_js  # type: ignore[import-not-found]  # registered by the host
    except ImportError:
        from pyodide.code import run_js

        return run_js(source(name))
    return getattr(pyctx_web_js, name)
