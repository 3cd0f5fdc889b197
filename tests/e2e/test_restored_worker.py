"""A worker restored from the demo's memory snapshot: ready before the standard library's zip
arrives, and started without the snapshot when the snapshot does not fit its Pyodide."""

from __future__ import annotations

import shutil
import struct
import sys
import time
from pathlib import Path
from typing import Any

from .conftest import DIST, ROOT

sys.path.insert(0, str(ROOT / "demo"))
import serve  # demo/serve.py: the demo's own server, here of a copy of the build

READY_TIMEOUT_MS = 60_000
ANSWER_TIMEOUT_S = 60.0
MODULE = "colorsys"
"""A standard library module that neither Pyodide nor the demo imports before a snapshot."""

# Records the worker's messages of the page, before the page's own scripts run.
WORKER_LOG = """
(() => {
  const log = (window.__workerLog = []);
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => log.push(event.data));
    }
  };
})();
"""


def _worker_message(page: Any, kind: str) -> dict[str, Any]:
    """The worker's first message of type ``kind``, waiting for it (the page allows no eval)."""
    deadline = time.monotonic() + ANSWER_TIMEOUT_S
    while time.monotonic() < deadline:
        found = [m for m in page.evaluate("window.__workerLog") if m.get("type") == kind]
        if found:
            return dict(found[0])
        page.wait_for_timeout(50)
    raise AssertionError(f"the worker sent no {kind} message")


def _open(browser: Any, url: str, *, hold_stdlib: bool) -> tuple[Any, Any, list[str], list[str]]:
    """A fresh test-hooks page of the demo: context, page, requested paths, console errors.

    With ``hold_stdlib``, the first request of python_stdlib.stock.zip (the worker's
    background load) is never answered; any later one is.
    """
    context = browser.new_context()
    context.add_init_script(WORKER_LOG)
    requested: list[str] = []
    errors: list[str] = []
    held: list[Any] = []

    def stdlib(route: Any) -> None:
        if hold_stdlib and not held:
            held.append(route)
            return
        route.fulfill(path=str(DIST / "python_stdlib.stock.zip"))

    context.route("**/python_stdlib.stock.zip", stdlib)
    context.on("request", lambda request: requested.append(request.url.rsplit("/", 1)[-1]))
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{url}?test-hooks")
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    return context, page, requested, errors


def test_the_worker_rehearses_a_first_turn_once_the_page_has_settled(
    browser: Any, demo_url: str
) -> None:
    """The worker rehearses a first turn as soon as the page says it has drawn what it
    restores, not once the page's fetch has been quiet for a while."""
    context, page, _, errors = _open(browser, demo_url, hold_stdlib=False)
    try:
        assert _worker_message(page, "rehearsed") == {"type": "rehearsed", "after": "settled"}
        assert errors == []
    finally:
        context.close()


def test_restored_worker_imports_a_new_stdlib_module_from_the_zip_loaded_after_ready(
    browser: Any, demo_url: str
) -> None:
    """After ready, the restored worker writes the zip and imports a module not in the snapshot."""
    context, page, requested, errors = _open(browser, demo_url, hold_stdlib=False)
    try:
        ready = _worker_message(page, "ready")
        assert ready["snapshot"] is True, ready
        # The wheel is requested once the zip is written.
        deadline = time.monotonic() + ANSWER_TIMEOUT_S
        while not any(name.endswith(".whl") for name in requested):
            assert time.monotonic() < deadline, requested
            page.wait_for_timeout(50)
        page.evaluate(
            f"window.__demo.worker.postMessage({{op: 'test_import', module: '{MODULE}'}})"
        )
        imported = _worker_message(page, "test_imported")
        assert imported == {
            "type": "test_imported",
            "module": MODULE,
            "imported_before": False,
            "file": f"/lib/python314.zip/{MODULE}.py",
            "stdlib": "background",
        }
        assert requested.count("python_stdlib.stock.zip") == 1
        assert "python_stdlib.zip" not in requested  # the compiled one: only without a snapshot
        assert errors == []
    finally:
        context.close()


def test_restored_worker_answers_and_imports_while_the_zip_is_still_on_its_way(
    browser: Any, demo_url: str
) -> None:
    """With the zip's background load held, the page is ready, answers, and an import loads it."""
    context, page, requested, errors = _open(browser, demo_url, hold_stdlib=True)
    try:
        ready = _worker_message(page, "ready")
        assert ready["snapshot"] is True, ready
        page.fill("#chat-input", "help me with email")
        page.press("#chat-input", "Enter")
        page.wait_for_selector("#needs-input-question", state="visible", timeout=READY_TIMEOUT_MS)
        # The first turn needed nothing of the zip: only the held request was made.
        assert requested.count("python_stdlib.stock.zip") == 1
        page.evaluate(
            f"window.__demo.worker.postMessage({{op: 'test_import', module: '{MODULE}'}})"
        )
        imported = _worker_message(page, "test_imported")
        assert imported["file"] == f"/lib/python314.zip/{MODULE}.py", imported
        assert imported["stdlib"] == "at once"
        assert requested.count("python_stdlib.stock.zip") == 2
        assert [m for m in page.evaluate("window.__workerLog") if m.get("type") == "error"] == []
        assert errors == []
    finally:
        context.close()


def test_a_snapshot_taken_against_another_initial_memory_is_not_restored(
    browser: Any, tmp_path: Path
) -> None:
    """A snapshot whose initial memory's checksum differs is refused; the worker starts without."""
    # The demo served from a copy of the build whose snapshot's checksum is off by one bit.
    shutil.copytree(DIST, tmp_path / "dist")
    shutil.copytree(DIST.parent / "demo-app", tmp_path / "demo-app")
    shutil.copytree(DIST.parent / "vendor", tmp_path / "vendor")  # the page's SDK bundle
    snapshot = tmp_path / "demo-app" / "demo.snapshot"
    with snapshot.open("r+b") as file:
        file.seek(8)
        (checksum,) = struct.unpack("<I", file.read(4))
        file.seek(8)
        file.write(struct.pack("<I", checksum ^ 1))
    context = browser.new_context()
    try:
        context.add_init_script(WORKER_LOG)
        page = context.new_page()
        warnings: list[str] = []
        errors: list[str] = []
        page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        with serve.running(serve.make_server("127.0.0.1", 0, tmp_path / "dist")) as url:
            page.goto(url)
            page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
            assert _worker_message(page, "ready")["snapshot"] is False
            page.fill("#chat-input", "help me with email")
            page.press("#chat-input", "Enter")
            page.wait_for_selector(
                "#needs-input-question", state="visible", timeout=READY_TIMEOUT_MS
            )
        assert warnings == [
            "The worker starts without its memory snapshot: the memory snapshot was taken "
            "against another initial memory."
        ]
        assert errors == []
    finally:
        context.close()
