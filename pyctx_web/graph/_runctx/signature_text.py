"""How a typed tool function reads: its docstring's parts, its annotations resolved and shown.

- :func:`summary`: a tool's description, the docstring's first paragraph;
- :func:`argument_descriptions`: the parameter descriptions of a Google-style
  ``Args:`` section (``name: text`` or ``name (type): text``, continued on more
  indented lines), as LangChain's ``@tool(parse_docstring=True)`` reads them;
- :func:`class_doc`: a class's own docstring, not one it inherits or that
  ``@dataclass`` writes;
- :func:`show_type`: an annotation as it is written (``list[int]``,
  ``str | None``), for error messages;
- :func:`signature`: a function's signature without evaluating its annotations;
- :func:`type_hints`: a function's annotations resolved, strings too, or an
  :class:`~pyctx_web.errors.ArgumentTypeError` naming the one that does not resolve.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
import typing
from collections.abc import Callable
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pyctx_web.errors import ArgumentTypeError

__all__ = [
    "argument_descriptions",
    "class_doc",
    "show_type",
    "signature",
    "summary",
    "type_hints",
]

_SECTION_WORDS = ("Args", "Arguments", "Parameters")


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    # Compiled for the first docstring that has a section: most tools' have none, and a
    # page's tools are made at its start, where each compiled pattern costs in Pyodide.
    section = re.compile(r"(Args|Arguments|Parameters)\s*:\s*")
    return section, re.compile(r"\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)")


def _is_section(text: str) -> bool:
    """Whether the stripped line ``text`` is a section header, ``Args:`` and its synonyms."""
    return text.startswith(_SECTION_WORDS) and _patterns()[0].fullmatch(text) is not None


def summary(doc: str) -> str:
    """The first paragraph of ``doc``, or nothing when ``doc`` opens with its ``Args:``."""
    first = doc.split("\n\n", 1)[0]
    return "" if _is_section(first.split("\n", 1)[0].strip()) else first


def argument_descriptions(doc: str) -> dict[str, str]:
    """Each parameter's description in the ``Args:`` section of the cleaned docstring ``doc``."""
    found: dict[str, list[str]] = {}
    header: int | None = None
    item_indent: int | None = None
    current: list[str] | None = None
    for line in doc.splitlines():
        text = line.strip()
        indent = len(line) - len(line.lstrip())
        if header is None:
            header = indent if _is_section(text) else None
            continue
        if not text:
            continue
        if indent <= header:
            break  # the next section
        item_indent = indent if item_indent is None else item_indent
        match = _patterns()[1].fullmatch(text) if indent == item_indent else None
        if match:
            current = found.setdefault(match[1], [])
            current.append(match[2])
        elif current is not None:
            current.append(text)
    return {name: " ".join(part for part in parts if part) for name, parts in found.items()}


def class_doc(cls: type) -> str | None:
    """The docstring ``cls`` itself has, cleaned; ``None`` for none or ``@dataclass``'s own."""
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str) or not doc.strip():
        return None
    doc = inspect.cleandoc(doc)
    generated = dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}(")
    return None if generated else doc


def show_type(hint: Any) -> str:
    """``hint`` as source code writes it: ``list[int]``, ``str | None``, ``Address``."""
    if hint is None or hint is NoneType:
        return "None"
    if hint is Ellipsis:
        return "..."
    if isinstance(hint, str):
        return hint
    origin, args = get_origin(hint), get_args(hint)
    if origin is None:
        if isinstance(hint, type):
            return hint.__qualname__
        return repr(hint).removeprefix("typing.")
    if origin is Literal:
        return f"Literal[{', '.join(repr(arg) for arg in args)}]"
    if origin is Union or origin is UnionType:
        return " | ".join(show_type(arg) for arg in args)
    if origin is Annotated:
        return f"Annotated[{', '.join([show_type(args[0]), *map(repr, args[1:])])}]"
    name = getattr(hint, "__name__", None) or show_type(origin)
    shown = [show_type(arg) if not isinstance(arg, list) else _show_list(arg) for arg in args]
    return f"{name}[{', '.join(shown)}]"


def _show_list(items: list[Any]) -> str:
    return f"[{', '.join(show_type(item) for item in items)}]"


def type_hints(fn: Callable[..., Any], tool: str) -> dict[str, Any]:
    """``fn``'s resolved annotations (a partial's: its function's); refuse unresolved ones."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception as error:
        missing = getattr(error, "name", None) or ""
        raw = {name: _text(ann) for name, ann in _raw_annotations(fn).items()}
        culprit = next((name for name, text in raw.items() if missing and missing in text), None)
        if culprit is None:
            message = f"tool {tool!r}: its annotations do not resolve: {error}"
        else:
            what = "the return annotation" if culprit == "return" else f"parameter {culprit!r}"
            message = f"tool {tool!r}: {what} has annotation {raw[culprit]}, which does not"
            message += f" resolve: {error}"
        raise ArgumentTypeError(message) from error


def signature(fn: Callable[..., Any]) -> inspect.Signature:
    """``fn``'s signature, its annotations left as they are (Python 3.14 would evaluate them)."""
    try:
        from annotationlib import Format  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return inspect.signature(fn)
    return inspect.signature(fn, annotation_format=Format.FORWARDREF)  # type: ignore[call-arg,unused-ignore]


def _raw_annotations(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        import annotationlib  # type: ignore[import-not-found,unused-ignore]  # Python >= 3.14

        found = annotationlib.get_annotations(fn, format=annotationlib.Format.STRING)
    except ImportError:
        found = getattr(fn, "__annotations__", {})
    return dict(found)


def _text(annotation: Any) -> str:
    return annotation if isinstance(annotation, str) else show_type(annotation)
