"""parse_json refuses JSON text longer or deeper than its limits before parsing it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pyctx_web.errors import JsonLimitError, PyctxError
from pyctx_web.jsonparse import MAX_DEPTH, nesting, parse_json


def _parse(text: str, **limits: int) -> Any:
    return parse_json(text, source="the event", **{"max_chars": 10_000_000, **limits})


def test_depth_at_the_limit_is_parsed_and_one_more_is_refused_whole() -> None:
    """256 nested arrays parse; 257 raise JsonLimitError with the whole message."""
    assert MAX_DEPTH == 256
    assert _parse("[" * 256 + "]" * 256) is not None
    with pytest.raises(
        JsonLimitError, match=r"^the event nests deeper than 256 levels; it was not parsed$"
    ):
        _parse("[" * 257 + "]" * 257)
    with pytest.raises(JsonLimitError) as caught:
        _parse('{"a":' * 100_000)
    assert (caught.value.kind, caught.value.limit, caught.value.source) == (
        "depth",
        256,
        "the event",
    )
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, PyctxError)


def test_the_depth_limit_is_the_callers() -> None:
    """max_depth sets the limit: 3 levels pass at 3 and fail at 2."""
    assert _parse('{"a":[{}]}', max_depth=3) == {"a": [{}]}
    with pytest.raises(
        JsonLimitError, match=r"^the event nests deeper than 2 levels; it was not parsed$"
    ):
        _parse('{"a":[{}]}', max_depth=2)


def test_brackets_in_strings_do_not_count() -> None:
    """Brackets inside strings, after escaped quotes and escaped backslashes, are not nesting."""
    brackets = "[{" * 5000
    text = json.dumps([brackets, '"' + brackets, "\\", "\\" + brackets, ['\\"' + brackets]])
    assert nesting(text) == 2
    assert _parse(text) == [brackets, '"' + brackets, "\\", "\\" + brackets, ['\\"' + brackets]]


def test_an_escaped_quote_does_not_end_a_string() -> None:
    """A string holding an escaped quote then brackets still hides those brackets."""
    assert nesting(r'["a\"[[[[", {"k\\": ["\\\"]]]"]}]') == 3


def test_nesting_is_the_parsers_depth_for_any_document() -> None:
    """For random documents with tricky strings, the scan finds the depth the values have."""
    pieces = ['"', "\\", "[", "]", "{", "}", "a", "é", "\\\\", '\\"']
    generator = random.Random(7)

    def value(depth: int) -> tuple[Any, int]:
        kind = generator.randrange(4 if depth < 12 else 1)
        if kind == 0:
            return "".join(generator.choices(pieces, k=generator.randrange(6))), 0
        items = [value(depth + 1) for _ in range(generator.randrange(4))]
        inner = max((d for _, d in items), default=0) + 1
        if kind == 1:
            return [v for v, _ in items], inner
        return {f"k{i}{v!s:.3}": v for i, (v, _) in enumerate(items)}, inner

    for _ in range(500):
        document, depth = value(0)
        assert nesting(json.dumps(document, ensure_ascii=generator.random() < 0.5)) == depth


def test_text_over_the_size_limit_is_refused_whole() -> None:
    """Text over max_chars is refused naming its length and the limit; at the limit it parses."""
    assert _parse('"' + "x" * 98 + '"', max_chars=100) == "x" * 98
    with pytest.raises(
        JsonLimitError,
        match=r"^the event is 1,000,001 characters long, over the limit of 1,000,000; "
        r"it was not parsed$",
    ):
        _parse('"' + "x" * 999_999 + '"', max_chars=1_000_000)


def test_malformed_text_within_the_limits_is_a_json_error() -> None:
    """Text within the limits that is not JSON raises json's own ValueError."""
    with pytest.raises(json.JSONDecodeError):
        _parse("[1,")
