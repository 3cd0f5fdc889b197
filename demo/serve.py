"""Serve the demo page and the local Pyodide distribution on 127.0.0.1.

``/`` serves ``demo/``, ``/pyodide/`` serves the distribution that
``./build.sh dist`` assembles in ``build/dist``, and ``/app.zip`` and
``/demo.snapshot`` the demo app compiled to bytecode and the worker's memory snapshot,
which ``./build.sh setup`` puts beside it in ``build/demo-app``; ``/usestream/`` serves the
useStream example page that ``./build.sh demo`` builds into ``build/usestream``
(examples/usestream). Every response carries the
Content-Security-Policy of the page: scripts from this origin only, plus the
WebAssembly compilation that Pyodide needs, and connections to this origin and
to local ports only, plus each ``--api-origin`` (the model API the page may call).

With ``--root FOLDER`` it serves any static folder instead (``build/site``, which
``./build.sh dist`` writes), as a static host would: a file's precompressed ``.br`` or
``.gz`` sibling when the request accepts it, and the caching of tools/site_headers.py
(a year, immutable, for content-hashed names; revalidation for the rest).
"""

from __future__ import annotations

import argparse
import errno
import http.server
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

DEMO_DIR = Path(__file__).resolve().parent
if str(DEMO_DIR.parent) not in sys.path:  # tools/, when run as a script of another checkout
    sys.path.insert(0, str(DEMO_DIR.parent))

from pyctx_web._js import module_source  # noqa: E402
from tools.site_headers import (  # noqa: E402
    ENCODINGS,
    TYPES,
    api_origin,
    choose_encoding,
    content_security_policy,
    headers_for,
    suffix_of,
)
from tools.site_headers import (  # noqa: E402
    LOCAL_CONNECT_SOURCES as LOCAL_CONNECT_SOURCES,
)

CONTENT_SECURITY_POLICY = content_security_policy()
"""The policy with no ``--api-origin``."""


JS_MODULE_PATH = "/pyctx_web.mjs"
"""Where pages and workers import pyctx_web's JavaScript from (see pyctx_web._js)."""

APP_ARCHIVE_PATH = "/app.zip"
"""Where the worker fetches the demo app from: ``demo/app`` compiled to bytecode."""

SNAPSHOT_PATH = "/demo.snapshot"
"""Where the worker fetches its memory snapshot from (``tools/snapshot.py``)."""

SDK_PATH = "/vendor/langgraph-sdk.mjs"
"""Where the page imports LangGraph's SDK from: the bundle ``./build.sh setup`` makes."""

USESTREAM_PATH = "/usestream/"
"""Where the useStream example page is served from: ``build/usestream`` (examples/usestream)."""

EXTRA_TYPES = TYPES


CROSS_ORIGIN_ISOLATION = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
}
"""Headers that make a page cross-origin isolated, which gives it a finer ``performance.now()``."""


PAGE_TYPES = {**http.server.SimpleHTTPRequestHandler.extensions_map, **EXTRA_TYPES}
"""The content type of each file suffix the page uses."""


class PageHandler(http.server.SimpleHTTPRequestHandler):
    """What every response of both servers has: the page's headers, keep-alive, the types."""

    # Keep-alive: the page's modules and the worker's files come over a few connections.
    protocol_version = "HTTP/1.1"
    page_policy: ClassVar[str] = CONTENT_SECURITY_POLICY
    page_isolated: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.extensions_map = PAGE_TYPES
        super().__init__(*args, **kwargs)

    def end_headers(self) -> None:
        for name, value in headers_for(self.path, self.page_policy).items():
            self.send_header(name, value)
        if self.page_isolated:
            for name, value in CROSS_ORIGIN_ISOLATION.items():
                self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        if os.environ.get("PYCTX_DEMO_QUIET"):
            return
        super().log_message(format, *args)


def _inside(folder: Path, relative: str) -> Path:
    """``folder/relative``, or a missing file of ``folder`` when that names a file outside it."""
    target = (folder / relative).resolve()
    # Never serve anything outside the folder.
    if folder.resolve() not in target.parents and target != folder.resolve():
        return folder / "__missing__"
    return target


def make_handler(
    dist_dir: Path,
    site_dir: Path = DEMO_DIR,
    *,
    isolated: bool = False,
    api_origins: Sequence[str] = (),
) -> type[http.server.SimpleHTTPRequestHandler]:
    """A handler of ``/pyodide/`` from ``dist_dir``, ``/app.zip`` and ``/demo.snapshot``
    from the ``demo-app`` folder beside it, LangGraph's SDK from the ``vendor`` folder beside
    it and the rest from ``site_dir``."""
    policy = content_security_policy(api_origins)
    built = {
        APP_ARCHIVE_PATH: dist_dir.parent / "demo-app" / "app.zip",
        SNAPSHOT_PATH: dist_dir.parent / "demo-app" / "demo.snapshot",
        SDK_PATH: dist_dir.parent / "vendor" / "langgraph-sdk.mjs",
    }

    class Handler(PageHandler):
        page_policy = policy
        page_isolated = isolated

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(site_dir), **kwargs)

        def do_GET(self) -> None:
            if self.path.split("?", 1)[0] == JS_MODULE_PATH:
                # pyctx_web's JavaScript as a same-origin module: no eval under this policy.
                body = module_source().encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/javascript; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            super().do_GET()

        def translate_path(self, path: str) -> str:
            clean = path.split("?", 1)[0].split("#", 1)[0]
            if clean in built:
                return str(built[clean])
            if clean.startswith(USESTREAM_PATH):
                return str(_inside(dist_dir.parent / "usestream", clean[len(USESTREAM_PATH) :]))
            if clean.startswith("/pyodide/"):
                relative = clean[len("/pyodide/") :]
                target = (dist_dir / relative).resolve()
                # Never serve anything outside the distribution folder.
                if dist_dir not in target.parents and target != dist_dir:
                    return str(dist_dir / "__missing__")
                return str(target)
            return super().translate_path(path)

    return Handler


def make_server(
    host: str,
    port: int,
    dist_dir: Path,
    site_dir: Path = DEMO_DIR,
    *,
    isolated: bool = False,
    api_origins: Sequence[str] = (),
) -> http.server.ThreadingHTTPServer:
    """Bind a server of ``site_dir`` and the distribution; ``OSError`` when the port is taken.

    With ``isolated``, every response also carries :data:`CROSS_ORIGIN_ISOLATION`;
    ``api_origins`` join the policy's ``connect-src``.
    """
    handler = make_handler(
        dist_dir.resolve(), site_dir.resolve(), isolated=isolated, api_origins=api_origins
    )
    return http.server.ThreadingHTTPServer((host, port), handler)


def make_static_handler(
    root: Path, *, isolated: bool = False, api_origins: Sequence[str] = ()
) -> type[http.server.SimpleHTTPRequestHandler]:
    """A handler of the static folder ``root``, as a static host serves it.

    A file with precompressed siblings (``NAME.br``, ``NAME.gz``) is sent as the sibling that
    the request's ``Accept-Encoding`` prefers, with ``Content-Encoding`` and ``Vary``; every
    response has the headers of :func:`tools.site_headers.headers_for`.
    """
    policy = content_security_policy(api_origins)

    class StaticHandler(PageHandler):
        page_policy = policy
        page_isolated = isolated

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def send_head(self) -> Any:
            path = Path(self.translate_path(self.path))
            if path.is_dir():
                if not self.path.split("?", 1)[0].endswith("/"):
                    return super().send_head()  # the redirect to the folder's own URL
                path = path / "index.html"
            if not path.is_file():
                self.send_error(404, "File not found")
                return None
            return self.send_file(path)

        def send_file(self, path: Path) -> Any:
            available = [
                coding
                for coding, suffix in ENCODINGS
                if path.with_name(path.name + suffix).is_file()
            ]
            coding = choose_encoding(self.headers.get("Accept-Encoding"), available)
            body = path.with_name(path.name + suffix_of(coding)) if coding else path
            stat = body.stat()
            etag = f'"{stat.st_mtime_ns:x}-{stat.st_size:x}{"-" + coding if coding else ""}"'
            matched = etag in (self.headers.get("If-None-Match") or "")
            self.send_response(304 if matched else 200)
            self.send_header("ETag", etag)
            if available:
                self.send_header("Vary", "Accept-Encoding")
            if matched:
                self.end_headers()
                return None
            self.send_header("Content-Type", self.guess_type(str(path)))
            self.send_header("Content-Length", str(stat.st_size))
            self.send_header("Last-Modified", self.date_time_string(int(stat.st_mtime)))
            if coding:
                self.send_header("Content-Encoding", coding)
            self.end_headers()
            return body.open("rb")

    return StaticHandler


def make_static_server(
    host: str,
    port: int,
    root: Path,
    *,
    isolated: bool = False,
    api_origins: Sequence[str] = (),
) -> http.server.ThreadingHTTPServer:
    """Bind a server of the static folder ``root`` (:func:`make_static_handler`)."""
    handler = make_static_handler(root.resolve(), isolated=isolated, api_origins=api_origins)
    return http.server.ThreadingHTTPServer((host, port), handler)


@contextmanager
def running(server: http.server.ThreadingHTTPServer) -> Iterator[str]:
    """Serve ``server`` on a thread of its own while the block runs; yields its URL."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--dist", type=Path, default=DEMO_DIR.parent / "build" / "dist")
    parser.add_argument(
        "--root",
        type=Path,
        metavar="FOLDER",
        help="serve this static folder (such as build/site) as a static host would: "
        "precompressed .br and .gz siblings by Accept-Encoding, Cache-Control by name",
    )
    parser.add_argument(
        "--isolated",
        action="store_true",
        help="also send the headers of cross-origin isolation (COOP and COEP)",
    )
    parser.add_argument(
        "--api-origin",
        dest="api_origins",
        action="append",
        type=api_origin,
        default=[],
        metavar="ORIGIN",
        help="let the page connect to this model API origin, such as https://api.example.com "
        "(repeatable; local ports are always allowed)",
    )
    args = parser.parse_args(argv)
    options: dict[str, Any] = {"isolated": args.isolated, "api_origins": args.api_origins}
    if args.root is not None and not args.root.is_dir():
        print(f"serve.py: --root {args.root} is not a folder", file=sys.stderr)
        return 2
    if args.root is None and not (args.dist / "pyodide.mjs").is_file():
        print(
            f"serve.py: no Pyodide distribution in {args.dist}: run ./build.sh dist",
            file=sys.stderr,
        )
        return 2
    try:
        if args.root is not None:
            server = make_static_server(args.host, args.port, args.root, **options)
        else:
            server = make_server(args.host, args.port, args.dist, **options)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            print(
                f"serve.py: port {args.port} is taken: pass --port N (or set PORT) to use another",
                file=sys.stderr,
            )
            return 2
        raise
    print(f"pyctx_web demo: http://{args.host}:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
