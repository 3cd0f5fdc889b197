"""The public API: each public module's ``__all__`` and the home module of what it exports."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import typing
from pathlib import Path
from types import ModuleType
from typing import ParamSpec, TypeVar

import pytest

import pyctx_web


def _is_public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


def _public_modules() -> list[str]:
    names = ["pyctx_web"]
    for info in pkgutil.walk_packages(pyctx_web.__path__, "pyctx_web."):
        if _is_public(info.name):
            names.append(info.name)
    return sorted(names)


PUBLIC_MODULES = _public_modules()


def _defined_names(module: ModuleType) -> set[str]:
    """The public names a module binds itself: classes, functions and assignments, not imports."""
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


def test_the_public_modules_are_found() -> None:
    """The walk over the package finds the public modules a user imports."""
    assert {"pyctx_web", "pyctx_web.graph.types", "pyctx_web.graph.checkpoint.memory"} <= set(
        PUBLIC_MODULES
    )


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_lists_every_public_name_the_module_defines(name: str) -> None:
    """``__all__`` holds every public name the module defines, and only names it has."""
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, list), f"{name} has no __all__ list"
    assert len(exported) == len(set(exported)), f"{name}.__all__ repeats a name"
    assert [n for n in exported if not hasattr(module, n)] == []
    defined = {
        n
        for n in _defined_names(module)
        if not isinstance(getattr(module, n, None), TypeVar | ParamSpec)  # type parameters
    }
    assert sorted(defined - set(exported)) == []


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_exported_classes_and_functions_name_a_public_home(name: str) -> None:
    """Each exported class and function has as ``__module__`` a public module that exports it."""
    module = importlib.import_module(name)
    wrong = []
    for member in module.__all__:
        value = getattr(module, member)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue  # constants and typing aliases have no home of their own
        home = value.__module__
        if not home.startswith("pyctx_web"):
            continue  # a third party's (LangChain's RemoveMessage), exported deliberately
        if (
            not _is_public(home)
            or getattr(importlib.import_module(home), member, None) is not value
        ):
            wrong.append(f"{member}: {home}")
    assert wrong == []


_HINTS_UNRESOLVED = {
    "pyctx_web.graph.errors.GraphInterrupt": (
        "its Interrupt is imported for type checking only, so that importing the errors "
        "loads no graph values"
    ),
}
"""Exported names whose annotations do not resolve at run time, and why."""


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_the_annotations_of_exported_names_resolve(name: str) -> None:
    """typing.get_type_hints works on every exported class and function, published ones too."""
    module = importlib.import_module(name)
    unresolved = []
    for export in module.__all__:
        value = getattr(module, export)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        if f"{value.__module__}.{value.__qualname__}" in _HINTS_UNRESOLVED:
            continue
        try:
            typing.get_type_hints(value, include_extras=True)
        except NameError as error:
            unresolved.append(f"{export}: {error}")
    assert unresolved == []
