"""pytest-pyodide, as far as this project's Pyodide tier uses it (the package ships no types)."""

from collections.abc import Callable, Collection, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, overload

_P = ParamSpec("_P")
_R = TypeVar("_R")

class _InPyodide(Protocol):
    """``run_in_pyodide`` with options, applied to the test function."""

    @overload
    def __call__(
        self, function: Callable[Concatenate[Any, _P], Coroutine[Any, Any, _R]], /
    ) -> Callable[Concatenate[Any, _P], _R]: ...
    @overload
    def __call__(
        self, function: Callable[Concatenate[Any, _P], _R], /
    ) -> Callable[Concatenate[Any, _P], _R]: ...

# The decorated function runs inside Pyodide. Its first parameter (named selenium...) takes the
# runner on the host; the other arguments are pickled over, and what the function returns (an
# async function's result once awaited in Pyodide) comes back pickled: the host's call is sync.
@overload
def run_in_pyodide(
    function: Callable[Concatenate[Any, _P], Coroutine[Any, Any, _R]], /
) -> Callable[Concatenate[Any, _P], _R]: ...
@overload
def run_in_pyodide(
    function: Callable[Concatenate[Any, _P], _R], /
) -> Callable[Concatenate[Any, _P], _R]: ...
@overload
def run_in_pyodide(
    *, packages: Collection[str] = ..., pytest_assert_rewrites: bool = ...
) -> _InPyodide: ...
