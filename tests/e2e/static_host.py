"""A plain static host for the e2e tier: a folder served as Netlify or Cloudflare Pages serve one.

It knows nothing of the demo: a file's ``Content-Type`` comes from its suffix, its other
headers from the folder's ``_headers`` file (Netlify's format: a URL path, or one ending in
``*``, then indented ``Name: value`` lines; every matching rule applies), and it compresses
each compressible response with gzip on the fly when the request accepts gzip, as a CDN
does. Precompressed siblings (``.br``, ``.gz``) are files like any other to it.
"""

from __future__ import annotations

import gzip
import http.server
import mimetypes
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

COMPRESSIBLE = (
    "text/",
    "application/javascript",
    "application/json",
    "application/wasm",
    "application/zip",
    "application/octet-stream",
)
"""Types the host compresses on the fly."""

TYPES = {".mjs": "text/javascript", ".wasm": "application/wasm", ".whl": "application/zip"}
"""Suffixes that Python's ``mimetypes`` may not know."""


def parse_headers_file(text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """The rules of a ``_headers`` file: each path pattern and its headers, in file order."""
    rules: list[tuple[str, list[tuple[str, str]]]] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            rules.append((line.strip(), []))
            continue
        name, sep, value = line.strip().partition(":")
        if not sep or not rules:
            raise ValueError(f"_headers: {line!r} is not a header under a path")
        rules[-1][1].append((name.strip(), value.strip()))
    return rules


def matches(pattern: str, path: str) -> bool:
    """Whether the URL path ``path`` matches a ``_headers`` pattern (exact, or a ``*`` splat)."""
    if pattern.endswith("*"):
        return path.startswith(pattern[:-1])
    return path == pattern


class StaticHost(http.server.ThreadingHTTPServer):
    """A static host of ``root`` on 127.0.0.1; ``requests`` logs each request line it served."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.requests: list[str] = []
        self.busy = 0  # responses being written
        self.last_done = time.monotonic()
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def wait_idle(self, quiet_s: float = 1.5, timeout_s: float = 60.0) -> None:
        """Return once no response has been written for ``quiet_s`` (what a page fetches after
        it is ready has arrived); ``TimeoutError`` after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self.lock:
                if not self.busy and time.monotonic() - self.last_done >= quiet_s:
                    return
            time.sleep(0.1)
        raise TimeoutError(f"the host was still sending after {timeout_s} s")

    def rules(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """The folder's ``_headers`` rules as they are now (a rebuild may change them)."""
        path = self.root / "_headers"
        return parse_headers_file(path.read_text(encoding="utf-8")) if path.is_file() else []


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: StaticHost

    def do_HEAD(self) -> None:
        self.respond(body=False)

    def do_GET(self) -> None:
        self.respond(body=True)

    def respond(self, *, body: bool) -> None:
        with self.server.lock:
            self.server.busy += 1
        try:
            self.send(body=body)
        finally:
            with self.server.lock:
                self.server.busy -= 1
                self.server.last_done = time.monotonic()

    def send(self, *, body: bool) -> None:
        path = unquote(urlsplit(self.path).path)
        self.server.requests.append(f"{self.command} {path}")
        file = self.locate(path)
        if file is None:
            self.send_error(404)
            return
        data = file.read_bytes()
        kind = TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0]
        kind = kind or "application/octet-stream"
        accepted = "gzip" in (self.headers.get("Accept-Encoding") or "")
        compress = kind.startswith(COMPRESSIBLE)
        if compress and accepted:
            data = gzip.compress(data, compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        if compress:
            self.send_header("Vary", "Accept-Encoding")
        if compress and accepted:
            self.send_header("Content-Encoding", "gzip")
        for pattern, headers in self.server.rules():
            if matches(pattern, path):
                for name, value in headers:
                    self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def locate(self, path: str) -> Path | None:
        """The file of the URL path ``path``: a folder's index.html; none outside the root."""
        if path == "/_headers":
            return None
        root = self.server.root.resolve()
        target = (root / path.lstrip("/")).resolve()
        if target != root and root not in target.parents:
            return None
        if target.is_dir():
            target = target / "index.html"
        return target if target.is_file() else None

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the requests are in server.requests


@contextmanager
def hosting(root: Path) -> Iterator[tuple[str, StaticHost]]:
    """Serve ``root`` as a static host on a thread while the block runs: its URL and server."""
    server = StaticHost(root)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", server
    finally:
        server.shutdown()
        server.server_close()
