"""Pyodide's JavaScript API object as a Python module, as far as the Pyodide tier uses it.

Only inside Pyodide. Its attributes are JavaScript's (``JsProxy``); those used are declared.
"""

from pyodide.ffi import JsProxy

# Emscripten's Module: its heap and C functions, untyped.
_module: JsProxy

def registerJsModule(name: str, module: object, /) -> None: ...
def unregisterJsModule(name: str, /) -> None: ...
