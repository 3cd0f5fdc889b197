"""The exception trees drawn in the docstrings of the error modules match the real classes."""

from __future__ import annotations

import builtins
import importlib
import inspect
import re
from dataclasses import dataclass

import pytest

_LINE = re.compile(r"^(?P<indent>\s*)(?:\+-- )?(?P<name>\w+)(?:\((?P<bases>[\w, ]*)\))?(?:\s|$)")


@dataclass(frozen=True)
class _Drawn:
    name: str
    parent: str | None
    extra_bases: tuple[str, ...]


def _drawn_tree(doc: str) -> list[_Drawn]:
    """The classes of the ``::`` block of ``doc``: each with its parent and bases in brackets."""
    block = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    drawn: list[_Drawn] = []
    stack: list[tuple[int, str]] = []
    for line in block.splitlines():
        match = _LINE.match(line)
        assert match is not None, f"cannot read the tree line {line!r}"
        column = match.end("indent")
        while stack and stack[-1][0] >= column:
            stack.pop()
        bases = tuple(b.strip() for b in (match["bases"] or "").split(",") if b.strip())
        drawn.append(_Drawn(match["name"], stack[-1][1] if stack else None, bases))
        stack.append((column, match["name"]))
    return drawn


def _named(module: object, name: str) -> type:
    found = getattr(module, name, None) or getattr(builtins, name, None)
    if found is None:
        found = getattr(importlib.import_module("pyctx_web.errors"), name)
    assert isinstance(found, type)
    return found


@pytest.mark.parametrize("name", ["pyctx_web.errors", "pyctx_web.graph.errors"])
def test_the_drawn_tree_is_the_class_tree(name: str) -> None:
    """Every exception the module defines is drawn under its first base, its other bases
    in brackets; nothing else is drawn."""
    module = importlib.import_module(name)
    assert module.__doc__ is not None
    drawn = _drawn_tree(module.__doc__)
    defined = {
        n
        for n, c in vars(module).items()
        if inspect.isclass(c) and issubclass(c, BaseException) and c.__module__ == name
    }
    assert sorted(d.name for d in drawn if d.name in defined) == sorted(defined)
    for entry in drawn:
        cls = _named(module, entry.name)
        bases = [b.__name__ for b in cls.__bases__]
        if entry.parent is None:
            if entry.name in defined:
                assert list(entry.extra_bases) == bases, entry.name
        else:
            assert [entry.parent, *entry.extra_bases] == bases, entry.name
