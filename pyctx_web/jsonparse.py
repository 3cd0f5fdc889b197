"""Parse JSON text from outside (a model, another tab, storage, the page) within limits.

:func:`parse_json` refuses, before parsing, text longer than the limit its
caller names or nesting arrays and objects deeper than ``max_depth``, with a
:class:`~pyctx_web.errors.JsonLimitError` naming what the text was. Python's
parser recurses once per level: in Pyodide, whose stack is small, some
thousands of levels overflow the WebAssembly stack, which kills the
interpreter instead of raising (100,000 levels do in Node and Chromium).

The depth is found by one linear scan in C-speed string operations (escaped
backslashes and quotes removed, strings dropped, brackets counted), and only
when the text holds more brackets than the limit, so that small documents pay
only two ``str.count``. Text past the first JSON error may be scanned wrongly,
but the parser stops at that error, so what it recurses into is what the scan
read right.

The limits, and why:

* :data:`MAX_DEPTH` (256): what a model, a tool call or the page sends nests a
  few levels; 256 stays far below Pyodide's stack however deep the caller is.
* :data:`STORED_DEPTH` (500): a checkpoint holds state values of up to 100
  levels (``pyctx_web.graph``'s serde) in a few levels of its own.
* :data:`EVENT_CHARS` (1,000,000): one streamed event or one tool call's
  arguments carries a few tokens to a few kilobytes.
* :data:`MESSAGE_CHARS` (16,000,000): a whole reply body or a message from the
  page, which holds the user's text.
* :data:`STORED_CHARS` (256,000,000): one stored record. Its writer is this
  package; the limit only keeps a forged record from exhausting the memory
  (parsing takes several times the text's size, in Pyodide's 4 GB at most).
"""

from __future__ import annotations

import itertools
import json
from typing import Any, Final

from pyctx_web.errors import JsonLimitError

__all__ = [
    "EVENT_CHARS",
    "MAX_DEPTH",
    "MESSAGE_CHARS",
    "STORED_CHARS",
    "STORED_DEPTH",
    "nesting",
    "parse_json",
]

MAX_DEPTH: Final = 256
"""How deep the arrays and objects of JSON text from a model, a tab or the page may nest."""
STORED_DEPTH: Final = 500
"""How deep the arrays and objects of a stored checkpoint record may nest."""
EVENT_CHARS: Final = 1_000_000
"""The longest streamed event, or tool-call arguments, parsed."""
MESSAGE_CHARS: Final = 16_000_000
"""The longest reply body of a model API, or message from the page, parsed."""
STORED_CHARS: Final = 256_000_000
"""The longest stored record parsed."""

_NOT_BRACKET: Final = {c: None for c in range(128) if chr(c) not in "[]{}"}
_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting(text: str) -> int:
    """How deep the arrays and objects of JSON ``text`` nest; brackets in strings do not count."""
    # Escapes first: an escaped backslash, then an escaped quote, which ends no string.
    bare = text.replace("\\\\", "").replace('\\"', "")
    brackets = "".join(bare.split('"')[::2]).translate(_NOT_BRACKET)
    return max(itertools.accumulate(map(_STEP.get, brackets, itertools.repeat(0))), default=0)


def parse_json(text: str, *, source: str, max_chars: int, max_depth: int = MAX_DEPTH) -> Any:
    """The value of JSON ``text``, checked against the limits before it is parsed.

    ``source`` names the text in the error (``"the stream event"``...).
    :class:`~pyctx_web.errors.JsonLimitError` when the text is longer than
    ``max_chars`` characters or nests deeper than ``max_depth``;
    ``json.JSONDecodeError`` (a ``ValueError`` too) when it is not JSON.
    """
    if len(text) > max_chars:
        raise JsonLimitError(source, kind="characters", limit=max_chars, found=len(text))
    if text.count("[") + text.count("{") > max_depth and nesting(text) > max_depth:
        raise JsonLimitError(source, kind="depth", limit=max_depth)
    try:
        return json.loads(text)
    except RecursionError:
        # Within the limit, but the caller's own stack was already deep.
        raise JsonLimitError(source, kind="stack", limit=max_depth) from None
