"""Pyodide's ``js`` module (JavaScript's global scope), as far as this project uses it.

Only inside Pyodide. Each global is a ``JsProxy``: its attributes are JavaScript's,
untyped (``JsProxy.__getattr__``). A global not declared here is a type error, so that
a new use of JavaScript is declared here once.
"""

from collections.abc import Callable

from pyodide.ffi import JsPromise, JsProxy

AbortController: JsProxy
Array: JsProxy
Error: JsProxy
Object: JsProxy
Promise: JsProxy
TextDecoder: JsProxy
WebAssembly: JsProxy
location: JsProxy  # browsers and their workers only: Node has none

def fetch(resource: str, options: object = ..., /) -> JsPromise[JsProxy]: ...

# A number in browsers, a Timeout object in Node.
def setTimeout(handler: JsProxy | Callable[[], object], delay: float = ..., /) -> int | JsProxy: ...
def clearTimeout(timer: int | JsProxy, /) -> None: ...
