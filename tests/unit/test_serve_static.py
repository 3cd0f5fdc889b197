"""demo/serve.py --root: a static folder sent with precompressed siblings and its headers."""

from __future__ import annotations

import gzip
import http.client
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVE = ROOT / "demo" / "serve.py"

# Loaded from its file: demo/ on sys.path would make its js/ folder the package "js".
_SPEC = importlib.util.spec_from_file_location("demo_serve_static", SERVE)
assert _SPEC is not None
assert _SPEC.loader is not None
serve = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(serve)

HASHED = "pyodide-0123456789ab"
SOURCE = b"export const answer = 42;\n" * 40
"""A module of the site, with hand-made siblings whose bytes say which one was sent."""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>\n", encoding="utf-8")
    (tmp_path / "index.html.gz").write_bytes(gzip.compress(b"<!doctype html><title>t</title>\n"))
    (tmp_path / HASHED).mkdir()
    module = tmp_path / HASHED / "pyodide.mjs"
    module.write_bytes(SOURCE)
    (tmp_path / HASHED / "pyodide.mjs.br").write_bytes(b"brotli bytes")
    (tmp_path / HASHED / "pyodide.mjs.gz").write_bytes(gzip.compress(SOURCE))
    (tmp_path / HASHED / "python_stdlib.zip").write_bytes(b"PK\x03\x04 stored")
    return tmp_path


@pytest.fixture
def origin(folder: Path) -> Iterator[str]:
    os.environ.setdefault("PYCTX_DEMO_QUIET", "1")
    with serve.running(serve.make_static_server("127.0.0.1", 0, folder)) as url:
        yield url


def get(origin: str, path: str, **headers: str) -> tuple[http.client.HTTPResponse, bytes]:
    parts = urlsplit(origin)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
    connection.request("GET", path, headers={k.replace("_", "-"): v for k, v in headers.items()})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response, body


def test_brotli_sibling_is_sent_when_accepted_with_its_encoding_type_and_caching(
    origin: str,
) -> None:
    """A request accepting br gets the .br sibling as Content-Encoding br of the file's own type."""
    response, body = get(origin, f"/{HASHED}/pyodide.mjs", Accept_Encoding="gzip, deflate, br")
    assert response.status == 200
    assert body == b"brotli bytes"
    assert response.getheader("Content-Encoding") == "br"
    assert response.getheader("Vary") == "Accept-Encoding"
    assert response.getheader("Content-Type") == "text/javascript; charset=utf-8"
    assert response.getheader("Content-Length") == str(len(b"brotli bytes"))
    assert response.getheader("Cache-Control") == "public, max-age=31536000, immutable"
    assert response.getheader("Content-Security-Policy") == serve.CONTENT_SECURITY_POLICY
    assert response.getheader("X-Content-Type-Options") == "nosniff"


def test_gzip_sibling_and_the_plain_file_follow_accept_encoding(origin: str) -> None:
    """gzip gets the .gz sibling; no Accept-Encoding gets the file itself, still with Vary."""
    zipped, body = get(origin, f"/{HASHED}/pyodide.mjs", Accept_Encoding="gzip")
    assert zipped.getheader("Content-Encoding") == "gzip"
    assert gzip.decompress(body) == SOURCE
    plain, body = get(origin, f"/{HASHED}/pyodide.mjs")
    assert plain.getheader("Content-Encoding") is None
    assert plain.getheader("Vary") == "Accept-Encoding"
    assert body == SOURCE


def test_a_file_without_siblings_is_sent_as_it_is_without_vary(origin: str) -> None:
    """A file that has no compressed sibling is sent whole, with no Content-Encoding or Vary."""
    response, body = get(origin, f"/{HASHED}/python_stdlib.zip", Accept_Encoding="gzip, br")
    assert body == b"PK\x03\x04 stored"
    assert response.getheader("Content-Type") == "application/zip"
    assert response.getheader("Content-Encoding") is None
    assert response.getheader("Vary") is None


def test_the_folder_url_is_its_index_revalidated_and_a_matching_etag_gets_304(origin: str) -> None:
    """/ is index.html with no-cache; asking again with its ETag gets 304 Not Modified, no body."""
    response, body = get(origin, "/", Accept_Encoding="gzip")
    assert gzip.decompress(body) == b"<!doctype html><title>t</title>\n"
    assert response.getheader("Content-Type") == "text/html; charset=utf-8"
    assert response.getheader("Cache-Control") == "no-cache"
    etag = response.getheader("ETag")
    assert etag
    again, body = get(origin, "/", Accept_Encoding="gzip", If_None_Match=etag)
    assert again.status == 304
    assert body == b""
    assert again.getheader("Cache-Control") == "no-cache"


@pytest.mark.parametrize("path", ["/missing.js", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd"])
def test_missing_files_and_paths_outside_the_folder_are_404(origin: str, path: str) -> None:
    """Only files inside the served folder are sent."""
    response, _body = get(origin, path)
    assert response.status == 404


def test_serve_py_root_prints_its_url_first_and_serves_the_folder(folder: Path) -> None:
    """``serve.py --root FOLDER --port 0`` prints its URL as its first line, then serves FOLDER."""
    process = subprocess.Popen(
        [sys.executable, str(SERVE), "--root", str(folder), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYCTX_DEMO_QUIET": "1"},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("pyctx_web demo: http://127.0.0.1:")
        response, body = get(line.split(": ", 1)[1], f"/{HASHED}/pyodide.mjs")
        assert (response.status, body) == (200, SOURCE)
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def test_serve_py_root_that_is_not_a_folder_is_refused(tmp_path: Path, capsys: Any) -> None:
    """--root naming no folder exits with 2 and says so."""
    assert serve.main(["--root", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err == f"serve.py: --root {tmp_path / 'nowhere'} is not a folder\n"
