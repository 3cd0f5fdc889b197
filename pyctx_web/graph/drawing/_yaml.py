"""Mermaid frontmatter as YAML, written as PyYAML's ``yaml.dump(data, default_flow_style=False)``.

Covers what a frontmatter holds: mappings (keys sorted), lists, strings,
numbers, booleans and ``None``. Strings are plain when PyYAML leaves them
plain, single-quoted when they would read as another type or start with an
indicator, double-quoted with escapes when they hold other than printable ASCII.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pyctx_web.errors import ArgumentTypeError

__all__ = ["dump_yaml"]

_IMPLICIT = re.compile(
    r"""(?x)^(?:
      yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
    | [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    | \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
    | [-+]?0b[0-1_]+ | [-+]?0[0-7_]+ | [-+]?(?:0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+
    | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
    | <<|~|null|Null|NULL|=
    | [0-9]{4}-[0-9]{2}-[0-9]{2}
    | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[\ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
      (?:[\ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?
    )$"""
)
"""Strings PyYAML would read back as a bool, number, null, merge key, value or date."""

_ALWAYS_INDICATORS = "#,[]{}&*!|>'\"%@`"
_ESCAPES = {"\0": "0", "\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f"}
_ESCAPES |= {"\r": "r", "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_"}


def dump_yaml(data: Mapping[str, Any]) -> str:
    """``data`` as block-style YAML, each line ending with a newline."""
    return "".join(line + "\n" for line in _mapping(data, ""))


def _mapping(data: Mapping[Any, Any], indent: str) -> list[str]:
    lines = []
    for key in sorted(data):
        value = data[key]
        head = f"{indent}{_scalar(key)}:"
        if isinstance(value, Mapping) and value:
            lines.append(head)
            lines.extend(_mapping(value, indent + "  "))
        elif isinstance(value, list | tuple) and value:
            lines.append(head)
            lines.extend(_sequence(value, indent))
        else:
            lines.append(f"{head} {_scalar(value)}")
    return lines


def _sequence(items: list[Any] | tuple[Any, ...], indent: str) -> list[str]:
    lines = []
    for item in items:
        if isinstance(item, Mapping) and item:
            nested = _mapping(item, indent + "  ")
            lines.append(f"{indent}- {nested[0].lstrip()}")
            lines.extend(nested[1:])
        elif isinstance(item, list | tuple) and item:
            nested = _sequence(item, indent + "  ")
            lines.append(f"{indent}- {nested[0].lstrip()}")
            lines.extend(nested[1:])
        else:
            lines.append(f"{indent}- {_scalar(item)}")
    return lines


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    if isinstance(value, str):
        return _string(value)
    raise ArgumentTypeError(
        f"frontmatter_config values must be dicts, lists, strings, numbers, booleans "
        f"or None, not {type(value).__qualname__}"
    )


def _float(value: float) -> str:
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    if "." not in text and "e" in text:
        text = text.replace("e", ".0e", 1)
    return text


def _string(text: str) -> str:
    if any(not (" " <= ch <= "~") for ch in text):
        return _double_quoted(text)
    if _plain(text):
        return text
    return "'" + text.replace("'", "''") + "'"


def _plain(text: str) -> bool:
    """Whether PyYAML writes ``text`` (printable ASCII) without quotes."""
    if not text or text[0] == " " or text[-1] == " " or _IMPLICIT.match(text):
        return False
    if text.startswith(("---", "...")):
        return False
    for index, ch in enumerate(text):
        spaced = index + 1 >= len(text) or text[index + 1] == " "
        if index == 0:
            if ch in _ALWAYS_INDICATORS or (ch in "?:-" and spaced):
                return False
        elif (ch == ":" and spaced) or (ch == "#" and text[index - 1] == " "):
            return False
    return True


def _double_quoted(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append("\\" + _ESCAPES[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        elif ord(ch) <= 0xFF:
            out.append(f"\\x{ord(ch):02X}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(f"\\U{ord(ch):08X}")
    return '"' + "".join(out) + '"'
