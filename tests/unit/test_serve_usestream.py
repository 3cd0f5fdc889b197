"""demo/serve.py serves the useStream example page, built into ``build/usestream``, at
``/usestream/`` beside the demo, and nothing outside that folder through it."""

from __future__ import annotations

import http.client
import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVE = ROOT / "demo" / "serve.py"

# Loaded from its file: demo/ on sys.path would make its js/ folder the package "js".
_SPEC = importlib.util.spec_from_file_location("demo_serve_usestream", SERVE)
assert _SPEC is not None
assert _SPEC.loader is not None
serve = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(serve)


@pytest.fixture
def origin(tmp_path: Path) -> Iterator[str]:
    """demo/serve.py over a build folder holding a distribution and a built useStream page."""
    dist = tmp_path / "build" / "dist"
    dist.mkdir(parents=True)
    (dist / "pyodide.mjs").write_text("export {};\n", encoding="utf-8")
    page = tmp_path / "build" / "usestream"
    page.mkdir()
    (page / "index.html").write_text("<!doctype html><title>useStream</title>\n", encoding="utf-8")
    (page / "main.js").write_text("export const page = 1;\n", encoding="utf-8")
    (tmp_path / "build" / "secret.txt").write_text("not for the web\n", encoding="utf-8")
    os.environ.setdefault("PYCTX_DEMO_QUIET", "1")
    with serve.running(serve.make_server("127.0.0.1", 0, dist)) as url:
        yield url


def get(origin: str, path: str) -> tuple[int, str, bytes]:
    """The status, content type and body of ``GET path`` sent as written (no normalizing)."""
    parts = urlsplit(origin)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, response.getheader("Content-Type") or "", body


def test_usestream_page_is_served_from_its_build_folder(origin: str) -> None:
    """/usestream/ is the built page's index.html and its bundle a JavaScript module, with the
    demo's Content-Security-Policy."""
    status, kind, body = get(origin, "/usestream/")
    assert (status, body) == (200, b"<!doctype html><title>useStream</title>\n")
    assert kind.startswith("text/html")
    status, kind, body = get(origin, "/usestream/main.js?v=1")
    assert (status, body) == (200, b"export const page = 1;\n")
    assert kind.startswith("text/javascript")
    parts = urlsplit(origin)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
    connection.request("GET", "/usestream/")
    policy = connection.getresponse().getheader("Content-Security-Policy")
    connection.close()
    assert policy == serve.CONTENT_SECURITY_POLICY


@pytest.mark.parametrize("path", ["/usestream/../secret.txt", "/usestream/%2e%2e/secret.txt"])
def test_paths_outside_the_page_folder_are_404(origin: str, path: str) -> None:
    """A path that climbs out of build/usestream is not served."""
    status, _kind, body = get(origin, path)
    assert status == 404
    assert b"not for the web" not in body


def test_a_page_not_built_is_404(tmp_path: Path) -> None:
    """Without build/usestream (./build.sh demo builds it) the page's path is 404."""
    dist = tmp_path / "dist"
    dist.mkdir()
    with serve.running(serve.make_server("127.0.0.1", 0, dist)) as url:
        assert get(url, "/usestream/")[0] == 404
