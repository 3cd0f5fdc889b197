"""The agent server's transport-neutral request and response (pyctx_web.server._http)."""

from __future__ import annotations

import json
import re

import pytest

from pyctx_web.server import Request
from pyctx_web.server._http import (
    ApiError,
    contains,
    json_response,
    page_of,
    paging_headers,
    parse_uuid,
    select_fields,
    sort_records,
)


def test_empty_body_is_422() -> None:
    """An empty body is not JSON: refused with 422 where a body is read, as the real server does."""
    with pytest.raises(ApiError, match=r"^Invalid JSON in request body$"):
        Request("POST", "/threads").json_body()


def test_malformed_json_is_422() -> None:
    """A body that is not JSON is refused with 422 and the reason."""
    with pytest.raises(ApiError, match=r"^Invalid JSON in request body$") as caught:
        Request("POST", "/threads", body=b"{nope").json_body()
    assert caught.value.status == 422


def test_non_object_json_is_422() -> None:
    """A JSON body that is not an object gets the real server's schema message."""
    message = (
        '[1] is not of type "object"\n\nFailed validating "type" in schema\n\nOn instance:\n    [1]'
    )
    with pytest.raises(ApiError, match=f"^{re.escape(message)}$"):
        Request("POST", "/threads", body=b"[1]").json_body()


def test_query_value_is_the_first() -> None:
    """``query_value`` gives the first of a repeated query parameter, None when absent."""
    request = Request("GET", "/x", {"stream_mode": ["values", "updates"]})
    assert (request.query_value("stream_mode"), request.query_value("other")) == ("values", None)


def test_api_error_response_is_detail_json() -> None:
    """An ApiError answers with its status and ``{"detail": ...}`` as JSON."""
    response = ApiError(409, "busy").response()
    assert (response.status, response.headers["content-type"]) == (409, "application/json")
    assert isinstance(response.body, bytes)
    assert json.loads(response.body) == {"detail": "busy"}


def test_json_response_keeps_given_headers() -> None:
    """``json_response`` adds the JSON content type to the headers it is given."""
    response = json_response(200, [1], {"x-pagination-total": "1"})
    assert response.headers == {"content-type": "application/json", "x-pagination-total": "1"}
    assert response.body == b"[1]"


def test_parse_uuid_canonicalises() -> None:
    """A UUID in any accepted spelling comes back in its canonical lower-case form."""
    upper = "A0B1C2D3-0000-4000-8000-000000000001"
    assert parse_uuid(upper, "thread") == upper.lower()


@pytest.mark.parametrize("value", ["abc", None, 12])
def test_parse_uuid_refuses_non_uuids(value: object) -> None:
    """Anything but a UUID string gets 422 naming the kind of id."""
    with pytest.raises(ApiError, match=r"^Invalid run ID: must be a UUID$"):
        parse_uuid(value, "run")


def test_contains_is_recursive_containment() -> None:
    """A filter matches a record holding each of its keys, nested dicts compared the same way."""
    record = {"a": 1, "b": {"c": 2, "d": 3}}
    assert contains(record, {"b": {"c": 2}})
    assert not contains(record, {"b": {"c": 3}})
    assert not contains(record, {"z": None})
    assert not contains(None, {"a": 1})


def test_sort_and_page() -> None:
    """Records sort by ``sort_by`` (descending by default), cut by ``offset`` and ``limit``."""
    records = [{"n": "1"}, {"n": "3"}, {"n": "2"}]
    ordered = sort_records({}, records, ("n",), "n")
    assert [r["n"] for r in ordered] == ["3", "2", "1"]
    ascending = sort_records({"sort_order": "asc"}, records, ("n",), "n")
    assert [r["n"] for r in page_of({"offset": 1, "limit": 1}, ascending)] == ["2"]


def _schema(head: str, keyword: str, schema: str, instance: str, shown: str) -> str:
    failed = f'Failed validating "{keyword}" in schema{schema}'
    return f"{head}\n\n{failed}\n\nOn instance{instance}:\n    {shown}"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"sort_by": "x"},
            _schema(
                '"x" is not one of "n", "m" or 1 other candidates',
                "enum",
                '["properties"]["sort_by"]',
                '["sort_by"]',
                '"x"',
            ),
        ),
        (
            {"sort_order": "up"},
            _schema(
                '"up" is not one of "asc" or "desc"',
                "enum",
                '["properties"]["sort_order"]',
                '["sort_order"]',
                '"up"',
            ),
        ),
        (
            {"limit": 0},
            _schema(
                "0 is less than the minimum of 1",
                "minimum",
                '["properties"]["limit"]',
                '["limit"]',
                "0",
            ),
        ),
        (
            {"limit": 1001},
            _schema(
                "1001 is greater than the maximum of 1000",
                "maximum",
                '["properties"]["limit"]',
                '["limit"]',
                "1001",
            ),
        ),
        (
            {"offset": "2"},
            _schema(
                '"2" is not of type "integer"',
                "type",
                '["properties"]["offset"]',
                '["offset"]',
                '"2"',
            ),
        ),
        (
            {"select": "n"},
            _schema(
                '"n" is not of type "array"',
                "type",
                '["properties"]["select"]',
                '["select"]',
                '"n"',
            ),
        ),
        (
            {"select": ["n", "z"]},
            _schema(
                '"z" is not one of "n", "m" or 1 other candidates',
                "enum",
                '["properties"]["select"]["items"]',
                '["select"][1]',
                '"z"',
            ),
        ),
    ],
)
def test_bad_search_fields_are_422(body: dict[str, object], message: str) -> None:
    """A bad sort, page or select field gets 422 worded as the real server's schema check."""
    fields = ("n", "m", "k")
    with pytest.raises(ApiError, match=f"^{re.escape(message)}$") as caught:
        select_fields(body, page_of(body, sort_records(body, [], fields, "n")), fields)
    assert caught.value.status == 422


def test_select_keeps_named_fields() -> None:
    """``select`` cuts each record to the named fields."""
    assert select_fields({"select": ["a"]}, [{"a": 1, "b": 2}], ("a", "b")) == [{"a": 1}]


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        ({"limit": 1}, {"x-pagination-total": "2", "x-pagination-next": "1"}),
        ({"limit": 2, "offset": 1}, {"x-pagination-total": "3"}),
        ({"offset": 5}, {"x-pagination-total": "5"}),
    ],
)
def test_paging_headers_count_as_the_real_server(
    body: dict[str, int], headers: dict[str, str]
) -> None:
    """With a next page the total is its offset plus one; on the last, offset plus the page."""
    assert paging_headers(body, [{"n": n} for n in range(3)]) == headers
