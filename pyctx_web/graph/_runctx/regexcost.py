"""Refuse ECMA-262 patterns whose matching can take exponential time.

Python's ``re`` and the browsers' engines backtrack: ``^(a+)+$`` against
``"aaaa…b"`` tries every way of splitting the a's, which takes minutes from
30 characters. :func:`pattern_problem` refuses, when a schema is read, the
shapes that cause it, by one scan of the pattern:

* a group repeated more than once (``*``, ``+``, ``{n,}``, ``{n,m}`` with
  ``m > 1``) that contains a quantifier: ``(a+)+``, ``(a*b?)*``, ``(\\d+,){2,}``;
* a group so repeated whose alternatives can start with the same character
  (two alike literal characters, or anything but a literal: a class, an escape
  such as ``\\d``, ``.``, a group, nothing): ``(a|ab)*``, ``(\\w|_)+``;
* a backreference (``\\1``, ``\\k<name>``), whose matching is NP-hard.

Patterns without groups, such as ``^[a-z]+$``, ``^\\d{3}-\\d{4}$``, or groups
matched once, ``^(https?)://``, are accepted. The page's form
(``demo/js/schemaform.js``) applies the same rule with the same words.
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import Final

from pyctx_web._records import record

__all__ = ["pattern_problem"]

_QUANTIFIER: Final = re.compile(r"[*+?]|\{(\d+)(,(\d*))?\}")
_LITERAL: Final = re.compile(r"[^\\\[\]().*+?{}|^$]|\\[^A-Za-z0-9]")
_GROUP_OPENING: Final = re.compile(r"\?(:|<?[=!]|<[^>]*>)")
_EXPONENTIAL: Final = "which can take exponential time to match"
_NESTED: Final = "repeats a group that contains a quantifier"
_ALIKE: Final = "repeats a group whose alternatives can start alike"


@record
class _Group:
    quantified: bool = False
    """Whether a quantifier appears anywhere inside."""
    firsts: list[str | None] = field(default_factory=lambda: [None])
    """Per alternative, its first atom when that is a literal character; None otherwise."""
    started: bool = False
    """Whether the current alternative has an atom yet."""


def _repeats(token: re.Match[str]) -> bool:
    """Whether the quantifier ``token`` lets its atom match more than once."""
    if token[1] is None:
        return token[0] != "?"
    if token[2] is None:
        return int(token[1]) > 1
    return not token[3] or int(token[3]) > 1


def _overlap(firsts: list[str | None]) -> bool:
    """Whether two alternatives, known by their first literal (or None), can start alike."""
    return len(firsts) > 1 and (None in firsts or len(set(firsts)) < len(firsts))


def _atom_end(pattern: str, i: int) -> int:
    """The index after the atom starting at ``pattern[i]`` (a character, escape or class)."""
    if pattern[i] == "\\":
        return i + 2
    if pattern[i] != "[":
        return i + 1
    i += 2 if pattern.startswith("[^", i) else 1
    i += 1 if pattern.startswith("]", i) else 0
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


def pattern_problem(pattern: str) -> str | None:
    """Why matching ``pattern`` can take exponential time, naming it; None when it cannot."""
    stack = [_Group()]
    i = 0
    while i < len(pattern):
        char, top = pattern[i], stack[-1]
        if char == "\\" and re.match(r"\\([1-9]|k<)", pattern[i:]):
            return f"the pattern {pattern!r} uses a backreference, {_EXPONENTIAL}"
        if char == "(":
            stack.append(_Group())
            opening = _GROUP_OPENING.match(pattern, i + 1)
            i = opening.end() if opening else i + 1
            continue
        if char == "|":
            top.firsts.append(None)
            top.started = False
            i += 1
            continue
        end = i + 1 if char == ")" else _atom_end(pattern, i)
        quantifier = _QUANTIFIER.match(pattern, end)
        if char == ")" and len(stack) > 1:
            inner = stack.pop()
            top = stack[-1]
            repeated = quantifier is not None and _repeats(quantifier)
            if repeated and (inner.quantified or _overlap(inner.firsts)):
                shape = _NESTED if inner.quantified else _ALIKE
                return f"the pattern {pattern!r} {shape}, {_EXPONENTIAL}"
            top.quantified |= inner.quantified
        elif not top.started and _LITERAL.fullmatch(pattern, i, end):
            top.firsts[-1] = pattern[end - 1]
        if char not in "^$":
            top.started = True
        top.quantified |= quantifier is not None
        i = quantifier.end() if quantifier else end
        i += 1 if quantifier and pattern.startswith("?", i) else 0
    return None
