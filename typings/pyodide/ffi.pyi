"""``pyodide.ffi``, as far as this project uses it (signatures as Pyodide 314 declares them)."""

from collections.abc import Awaitable, Callable, Generator, Iterable
from typing import Any, Generic, TypeVar

_T = TypeVar("_T")

class JsProxy:
    """A JavaScript object seen from Python."""

    # JavaScript's properties and methods, whatever the object has: untyped.
    def __getattr__(self, name: str) -> Any: ...
    def new(self, *args: Any, **kwargs: Any) -> JsProxy: ...
    def to_py(self, *, depth: int = -1) -> Any: ...

class JsPromise(JsProxy, Generic[_T]):
    """A JavaScript Promise, awaitable from Python."""

    def __await__(self) -> Generator[Any, None, _T]: ...

class JsException(JsProxy, Exception):
    """A JavaScript error raised into Python."""

def to_js(
    obj: object,
    /,
    *,
    depth: int = -1,
    pyproxies: JsProxy | None = None,
    create_pyproxies: bool = True,
    dict_converter: Callable[[Iterable[Any]], JsProxy] | None = None,
) -> Any: ...
def create_proxy(
    obj: object, /, *, capture_this: bool = False, roundtrip: bool = True
) -> JsProxy: ...
def create_once_callable(obj: Callable[..., object], /) -> JsProxy: ...
def destroy_proxies(pyproxies: JsProxy, /) -> None: ...
def run_sync(x: Awaitable[_T], /) -> _T: ...
def can_run_sync() -> bool: ...
