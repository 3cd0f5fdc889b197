"""Take the demo worker's memory snapshot in headless Chromium.

usage: python tools/snapshot.py DIST_DIR OUT_FILE APP_DIR

``./build.sh setup`` runs it after assembling ``DIST_DIR`` (build/dist) and the app
archive beside it (build/demo-app/app.zip). In a Web Worker, like the demo's,
``tools/snapshot_worker.mjs`` loads that Pyodide with ``_makeSnapshot``, unpacks the
pyctx_web wheel and the app (into ``APP_DIR``), imports them through
``worker_main.preload()``, which also rehearses a first turn on memory, and takes
``pyodide.makeMemorySnapshot()``: the interpreter's whole memory with everything imported
and nothing started. ``demo/worker.js`` passes it
to ``loadPyodide`` as ``_loadSnapshot`` instead of importing all of it again.

The file is not Pyodide's snapshot as it is: the part of the memory where the wasm's data
segments lie is stored XORed with the memory a restoring Pyodide starts with, so that the
data the worker already has with the wasm is stored as zeros (brotli at quality 11: 3.1 MB
instead of 4.2);
the worker XORs it back (``snapshot_worker.mjs``'s ``encode`` describes the form). The stack
below its pointer, dead when the snapshot is taken, is stored as zeros too.

The snapshot is taken in the browser because it fixes what was decided at import time,
such as ``pyctx_web.IN_BROWSER``: it must be the browser's answer.
"""

from __future__ import annotations

import base64
import gzip
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.chromium import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402

WORKER_PATH = "/__snapshot_worker.mjs"
PAGE_PATH = "/__snapshot.html"
TIMEOUT_MS = 300_000

# The page starts the worker and hands back its snapshot gzipped, as a data URL: mostly
# zero pages, it shrinks about tenfold before crossing to Python.
TAKE = """
async (src) => {
  const data = await new Promise((resolve, reject) => {
    const worker = new Worker(src, { type: "module" });
    worker.onmessage = (event) => {
      worker.terminate();
      if (event.data.error) reject(new Error(event.data.error));
      else resolve(event.data.snapshot);
    };
    worker.onerror = (event) => reject(new Error(event.message || "the snapshot worker failed"));
  });
  const zipped = new Blob([data]).stream().pipeThrough(new CompressionStream("gzip"));
  const blob = await new Response(zipped).blob();
  return await new Promise((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.readAsDataURL(blob);
  });
}
"""


def take(dist: Path, app_dir: str) -> bytes:
    """The snapshot of the demo worker served from ``dist``, its app unpacked in ``app_dir``."""
    os.environ.setdefault("PYCTX_DEMO_QUIET", "1")
    sys.path.insert(0, str(ROOT / "demo"))
    import serve  # demo/serve.py: the demo's own server, headers and all
    from playwright.sync_api import sync_playwright

    worker_source = (ROOT / "tools" / "snapshot_worker.mjs").read_text(encoding="utf-8")
    with (
        serve.running(serve.make_server("127.0.0.1", 0, dist)) as origin,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        context = browser.new_context()
        # Routes on the context, not the page: they also serve the worker's requests.
        context.route(
            lambda url: url.split("?", 1)[0].endswith(WORKER_PATH),
            lambda route: route.fulfill(body=worker_source, content_type="text/javascript"),
        )
        context.route(
            f"**{PAGE_PATH}",
            lambda route: route.fulfill(body="<!doctype html>", content_type="text/html"),
        )
        page = context.new_page()
        page.on("console", lambda message: print(message.text, file=sys.stderr))
        page.goto(origin.rstrip("/") + PAGE_PATH)
        url: Any = page.evaluate(TAKE, f"{WORKER_PATH}?app={app_dir}")
        browser.close()
    return gzip.decompress(base64.b64decode(str(url).split(",", 1)[1]))


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    dist, out, app_dir = Path(argv[0]), Path(argv[1]), argv[2]
    snapshot = take(dist, app_dir)
    out.write_bytes(snapshot)
    print(f"{out}: {len(snapshot) / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
