"""The official JSON-Schema-Test-Suite (draft 2020-12) against the checks of tool arguments.

``./build.sh setup`` extracts the suite from the sdist of ``jsonschema`` pinned in
pyproject.toml (``[tool.pyctx-web] json-schema-suite``) into
``build/cache/json-schema-suite/draft2020-12``. Every case of every file there,
``optional/`` included, runs against :func:`validate` and must get the suite's
verdict, after :func:`check_schema` (what ``@tool`` calls) accepted its schema.
What does not run is listed here with its reason:

- ``UNSUPPORTED_FILES``: files of keywords the checks do not support; ``@tool``
  must refuse every schema in them;
- ``REFUSED_GROUPS``: groups of other files whose schema uses such a keyword or
  feature; ``@tool`` must refuse each, naming the keyword given here;
- ``NOT_RUN``: files whose schemas are accepted but whose verdicts need an
  optional feature pyctx_web leaves out.

A new file in a later suite runs by default, and a listed file or group that is
gone fails ``test_every_listed_exception_is_in_the_suite``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph._runctx.jsonschema import validate
from pyctx_web.graph._runctx.schemacheck import check_schema

SUITE = Path(__file__).resolve().parents[3] / "build" / "cache" / "json-schema-suite"
SUITE = SUITE / "draft2020-12"

_ID = "a schema resource with its own base URI; refer to parts with '#/$defs/...'"
_REMOTE = "a $ref to another document or to an $id URI; tool schemas are self-contained"

UNSUPPORTED_FILES = {
    "anchor.json": "$anchor, plain-name fragments and $id: refer with '#/$defs/...'",
    "defs.json": "its one group checks $defs against the meta-schema by a remote $ref",
    "dynamicRef.json": "$dynamicRef and $dynamicAnchor, with $id",
    "refRemote.json": "$ref to other documents: tool schemas are self-contained",
    "unevaluatedItems.json": "unevaluatedItems needs annotations collected across applicators",
    "unevaluatedProperties.json": "unevaluatedProperties needs annotations collected across "
    "applicators",
    "vocabulary.json": "$vocabulary and custom meta-schemas",
    "optional/anchor.json": "$anchor",
    "optional/cross-draft.json": "remote $ref to schemas of other drafts",
    "optional/dependencies-compatibility.json": "dependencies, the draft-07 keyword "
    "(dependentRequired and dependentSchemas are supported)",
    "optional/dynamicRef.json": "$dynamicRef with $id",
    "optional/format-assertion.json": "custom meta-schemas with $id and $vocabulary",
    "optional/id.json": "$id",
    "optional/refOfUnknownKeyword.json": "unknown keywords are refused: a misspelt keyword "
    "would otherwise check nothing",
    "optional/unknownKeyword.json": "unknown keywords are refused",
}
"""Files of keywords the checks do not support: each of their schemas must be refused."""

REFUSED_GROUPS = {
    ("not.json", "collect annotations inside a 'not', even if collection is disabled"): (
        "unevaluatedProperties",
        "needs annotations collected across applicators",
    ),
    ("ref.json", "remote ref, containing refs itself"): ("$ref", _REMOTE),
    ("ref.json", "Recursive references between schemas"): ("$id", _ID),
    ("ref.json", "ref creates new scope when adjacent to keywords"): (
        "unevaluatedProperties",
        "needs annotations collected across applicators",
    ),
    ("ref.json", "refs with relative uris and defs"): ("$id", _ID),
    ("ref.json", "relative refs with absolute uris and defs"): ("$id", _ID),
    ("ref.json", "$id must be resolved against nearest parent, not just immediate parent"): (
        "$id",
        _ID,
    ),
    ("ref.json", "order of evaluation: $id and $ref"): ("$id", _ID),
    ("ref.json", "order of evaluation: $id and $anchor and $ref"): ("$id", _ID),
    ("ref.json", "simple URN base URI with $ref via the URN"): ("$id", _ID),
    ("ref.json", "simple URN base URI with JSON pointer"): ("$id", _ID),
    ("ref.json", "URN base URI with NSS"): ("$id", _ID),
    ("ref.json", "URN base URI with r-component"): ("$id", _ID),
    ("ref.json", "URN base URI with q-component"): ("$id", _ID),
    ("ref.json", "URN base URI with URN and JSON pointer ref"): ("$id", _ID),
    ("ref.json", "URN base URI with URN and anchor ref"): ("$id", _ID),
    ("ref.json", "URN ref with nested pointer ref"): ("$ref", _REMOTE),
    ("ref.json", "ref to if"): ("$ref", _REMOTE),
    ("ref.json", "ref to then"): ("$ref", _REMOTE),
    ("ref.json", "ref to else"): ("$ref", _REMOTE),
    ("ref.json", "ref with absolute-path-reference"): ("$id", _ID),
    ("ref.json", "$id with file URI still resolves pointers - *nix"): ("$id", _ID),
    ("ref.json", "$id with file URI still resolves pointers - windows"): ("$id", _ID),
    ("optional/ecmascript-regex.json", "patterns always use unicode semantics with pattern"): (
        "pattern",
        "\\p{...} Unicode property classes: Python's re has none",
    ),
    ("optional/ecmascript-regex.json", "pattern with non-ASCII digits"): (
        "pattern",
        "\\p{...} Unicode property classes: Python's re has none",
    ),
    (
        "optional/ecmascript-regex.json",
        "patterns always use unicode semantics with patternProperties",
    ): ("patternProperties", "\\p{...} Unicode property classes: Python's re has none"),
    ("optional/ecmascript-regex.json", "patternProperties with non-ASCII digits"): (
        "patternProperties",
        "\\p{...} Unicode property classes: Python's re has none",
    ),
}
"""Groups of supported files whose schema must be refused: (keyword named, why)."""

NOT_RUN = {
    "optional/format/": "format is an annotation in draft 2020-12 unless a meta-schema asks "
    "for assertion; tools accept it and assert no format",
}
"""Files accepted by ``@tool`` whose verdicts need an optional feature, by path prefix."""


def _files() -> list[str]:
    if not SUITE.is_dir():
        return []
    return sorted(path.relative_to(SUITE).as_posix() for path in SUITE.rglob("*.json"))


def _groups() -> Iterator[tuple[str, dict[str, Any]]]:
    for name in _files():
        if not name.startswith(tuple(NOT_RUN)):
            for group in json.loads((SUITE / name).read_text(encoding="utf-8")):
                yield name, group


def _is_refused(name: str, group: dict[str, Any]) -> bool:
    return name in UNSUPPORTED_FILES or (name, group["description"]) in REFUSED_GROUPS


RUN = [
    pytest.param(name, group, case, id=f"{name}:{group['description']}:{case['description']}")
    for name, group in _groups()
    if not _is_refused(name, group)
    for case in group["tests"]
]
REFUSED = [
    pytest.param(name, group, id=f"{name}:{group['description']}")
    for name, group in _groups()
    if _is_refused(name, group)
]


def test_the_suite_is_fetched() -> None:
    """build.sh has extracted the draft 2020-12 suite where these tests read it."""
    assert (SUITE / "type.json").is_file(), f"no suite in {SUITE}: run ./build.sh setup"


def test_every_listed_exception_is_in_the_suite() -> None:
    """Every file, group and prefix listed as not run names something the suite has."""
    files = _files()
    groups = {
        (name, group["description"])
        for name in files
        for group in json.loads((SUITE / name).read_text(encoding="utf-8"))
    }
    assert sorted(set(UNSUPPORTED_FILES) - set(files)) == []
    assert sorted(set(REFUSED_GROUPS) - groups) == []
    assert [p for p in NOT_RUN if not any(name.startswith(p) for name in files)] == []


def test_most_of_the_suite_runs() -> None:
    """At least 1000 cases of the suite run, so that no listing mistake skips most of it."""
    assert len(RUN) >= 1000


@pytest.mark.parametrize(("name", "group", "case"), RUN)
def test_suite_case(name: str, group: dict[str, Any], case: dict[str, Any]) -> None:
    """The tool checks accept the case's schema and give the suite's verdict on its data."""
    schema = group["schema"]
    if not isinstance(schema, bool):  # tool parameters are objects; subschemas may be booleans
        check_schema(schema)
    problems = validate(case["data"], schema)
    assert (problems == []) is case["valid"], f"{case['description']}: {problems}"


@pytest.mark.parametrize(("name", "group"), REFUSED)
def test_unsupported_schema_is_refused(name: str, group: dict[str, Any]) -> None:
    """@tool's check refuses a schema of the suite that uses an unsupported keyword."""
    keyword = REFUSED_GROUPS.get((name, group["description"]), ("", ""))[0]
    with pytest.raises(ArgumentValueError, match=re.escape(repr(keyword)) if keyword else None):
        check_schema(group["schema"])
