"""Serve the demo page and the local Pyodide distribution on 127.0.0.1.

``/`` serves ``demo/``, ``/pyodide/`` serves the distribution that
``./build.sh dist`` assembles in ``build/dist``, and ``/app.zip`` and
``/demo.snapshot`` the demo app compiled to bytecode and the worker's memory snapshot,
which ``./build.sh setup`` puts beside it in ``build/demo-app``. Every response carries the
Content-Security-Policy of the page: scripts from this origin only, plus the
WebAssembly compilation that Pyodide needs, and connections to this origin and
to local ports only, plus each ``--api-origin`` (the model API the page may call).
"""

from __future__ import annotations

import argparse
import errno
import http.server
import os
import re
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from pyctx_web._js import module_source

DEMO_DIR = Path(__file__).resolve().parent

LOCAL_CONNECT_SOURCES = ("'self'", "http://127.0.0.1:*", "http://localhost:*")
"""Where the page may connect without any ``--api-origin``: itself and local ports."""

_ORIGIN = re.compile(r"^(https?|wss?)://(\*\.)?[A-Za-z0-9.-]+(:(\d{1,5}|\*))?$")


def content_security_policy(api_origins: Sequence[str] = ()) -> str:
    """The page's policy; ``api_origins`` are added to its ``connect-src``."""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self' 'wasm-unsafe-eval'",
            "worker-src 'self'",
            "connect-src " + " ".join([*LOCAL_CONNECT_SOURCES, *api_origins]),
            "style-src 'self'",
            "img-src 'self' data:",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
            "form-action 'none'",
        ]
    )


CONTENT_SECURITY_POLICY = content_security_policy()
"""The policy with no ``--api-origin``."""


def api_origin(text: str) -> str:
    """An ``--api-origin`` value: ``scheme://host[:port]``; ``ArgumentTypeError`` otherwise."""
    origin = text.strip().rstrip("/")
    if not _ORIGIN.match(origin):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an origin such as https://api.example.com "
            "(a scheme, a host, an optional port, and no path)"
        )
    return origin


JS_MODULE_PATH = "/pyctx_web.mjs"
"""Where pages and workers import pyctx_web's JavaScript from (see pyctx_web._js)."""

APP_ARCHIVE_PATH = "/app.zip"
"""Where the worker fetches the demo app from: ``demo/app`` compiled to bytecode."""

SNAPSHOT_PATH = "/demo.snapshot"
"""Where the worker fetches its memory snapshot from (``tools/snapshot.py``)."""

EXTRA_TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".json": "application/json",
    ".py": "text/plain; charset=utf-8",
    ".snapshot": "application/octet-stream",
}


CROSS_ORIGIN_ISOLATION = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
}
"""Headers that make a page cross-origin isolated, which gives it a finer ``performance.now()``."""


def make_handler(
    dist_dir: Path,
    site_dir: Path = DEMO_DIR,
    *,
    isolated: bool = False,
    api_origins: Sequence[str] = (),
) -> type[http.server.SimpleHTTPRequestHandler]:
    """A handler of ``/pyodide/`` from ``dist_dir``, ``/app.zip`` and ``/demo.snapshot``
    from the ``demo-app`` folder beside it and the rest from ``site_dir``."""
    policy = content_security_policy(api_origins)
    built = {
        APP_ARCHIVE_PATH: dist_dir.parent / "demo-app" / "app.zip",
        SNAPSHOT_PATH: dist_dir.parent / "demo-app" / "demo.snapshot",
    }

    class Handler(http.server.SimpleHTTPRequestHandler):
        # Keep-alive: the page's modules and the worker's files come over a few connections.
        protocol_version = "HTTP/1.1"
        extensions_map: ClassVar[dict[str, str]] = {
            **http.server.SimpleHTTPRequestHandler.extensions_map,
            **EXTRA_TYPES,
        }

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
            if clean.startswith("/pyodide/"):
                relative = clean[len("/pyodide/") :]
                target = (dist_dir / relative).resolve()
                # Never serve anything outside the distribution folder.
                if dist_dir not in target.parents and target != dist_dir:
                    return str(dist_dir / "__missing__")
                return str(target)
            return super().translate_path(path)

        def end_headers(self) -> None:
            self.send_header("Content-Security-Policy", policy)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Cache-Control", "no-cache")
            if isolated:
                for name, value in CROSS_ORIGIN_ISOLATION.items():
                    self.send_header(name, value)
            super().end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            if os.environ.get("PYCTX_DEMO_QUIET"):
                return
            super().log_message(format, *args)

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
    if not (args.dist / "pyodide.mjs").is_file():
        print(
            f"serve.py: no Pyodide distribution in {args.dist}: run ./build.sh dist",
            file=sys.stderr,
        )
        return 2
    try:
        server = make_server(args.host, args.port, args.dist, api_origins=args.api_origins)
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
