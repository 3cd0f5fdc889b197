"""The demo's API model in Chromium: from choosing it to its first token, and a turn's time,
with this build's client (the OpenAI SDK over ``pyctx_web.http``) and with the hand-written
client it replaced, against the same scripted OpenAI-compatible server.

Each round opens the demo of this build in a fresh browser context, its memory snapshot
withheld so that the worker imports the app from ``app.zip``; for the hand-written client,
``app.zip`` is answered with a copy that also holds that client's modules (from git, at
:data:`OLD_REF`, renamed ``old_*``) and a module that makes the settings' API model that
client; the page's test hook imports it before the model is chosen. Then, with the page's
own clock:

- *choose to first token*: the ``configure_model`` message is posted (the API model
  chosen; this build's worker starts loading the SDK's packages), a message is sent at once,
  and the first streamed token of the answer is drawn. The packages' loading counts.
- *turn*: a second message on the same thread, Enter to the thread's ``done``: a turn of
  three model calls (enrich, plan, respond), the SDK already loaded.

The two clients take turns at going first. These rows have no goal.
"""

from __future__ import annotations

import io
import re
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import goals
import stats

ROOT = Path(__file__).resolve().parent.parent
DEMO_APP = ROOT / "build" / "demo-app"

OLD_REF = "9fc732a^"
"""The last commit whose demo had the hand-written client."""

OLD_MODULES = ("sse", "completion_stream", "http_policy", "openai_model")
"""The hand-written client's own modules (it shares protocol, csp and reply_watch)."""

OLD_SWITCH = '''"""Makes the settings' API model the hand-written client (benchmark only)."""
import models
from old_openai_model import OpenAICompatibleModel as _Old

_make = models.make_model


def make_model(config):
    if isinstance(config, dict) and config.get("kind") == "openai":
        delay = config.get("token_delay_ms")
        return _Old.from_settings(config, 0 if delay is None else delay)
    return _make(config)


models.make_model = make_model
'''

PROBE = """
(() => {
  const b = (window.__api = { mark: null, answered: 0, firstAt: null });
  const answers = "#transcript .msg[data-role=assistant] .msg-body";
  // Text in the streaming answer, or a new answer (a reply drawn whole, in one frame).
  b.answersNow = () => document.querySelectorAll(answers).length;
  new MutationObserver(() => {
    if (b.mark === null || b.firstAt !== null) return;
    const body = document.querySelector("#transcript .msg-streaming .msg-body");
    if ((body && body.textContent.trim()) || b.answersNow() > b.answered) {
      b.firstAt = performance.now();
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();
"""

IMPORT_OLD = """() => new Promise((resolve) => {
  const worker = window.__demo.worker;
  const listen = (event) => {
    if (event.data && event.data.type === "test_imported") {
      worker.removeEventListener("message", listen);
      resolve(event.data.error || "");
    }
  };
  worker.addEventListener("message", listen);
  worker.postMessage({ op: "test_import", module: "bench_old_client" });
})"""

CHOOSE = """(model) => {
  window.__api.answered = window.__api.answersNow();
  window.__api.mark = performance.now();
  window.__demo.worker.postMessage({ op: "configure_model", model });
}"""

TURN_TIMEOUT_MS = 120_000

ANSWERS = "#transcript .msg[data-role=assistant]"
TURN_DONE = """([answers, before]) =>
  document.querySelectorAll(answers).length > before &&
  document.getElementById("transcript").dataset.threadState === "done"
"""


def old_app_zip(app_zip: bytes) -> bytes:
    """``app_zip`` with the hand-written client's modules (renamed ``old_*``) and its switch."""
    renamed = "|".join(OLD_MODULES)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(app_zip)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            target.writestr(item, source.read(item))
        for name in OLD_MODULES:
            text = subprocess.run(
                ["git", "-C", str(ROOT), "show", f"{OLD_REF}:demo/app/{name}.py"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            text = re.sub(rf"^from ({renamed}) import", r"from old_\1 import", text, flags=re.M)
            target.writestr(f"old_{name}.py", text)
        target.writestr("bench_old_client.py", OLD_SWITCH)
    return out.getvalue()


def one_page(browser: Any, url: str, api: Any, old_zip: bytes | None) -> dict[str, float]:
    """One fresh page: choose the API model, first token, then a second turn's time."""
    from tests.e2e.openai_server import text_reply

    context = browser.new_context()
    try:
        context.add_init_script(PROBE)
        context.route("**/demo.snapshot", lambda route: route.fulfill(status=404, body="no"))
        if old_zip is not None:
            context.route(
                "**/app.zip",
                lambda route: route.fulfill(body=old_zip, content_type="application/zip"),
            )
        page = context.new_page()
        page.goto(f"{url}?test-hooks")
        page.wait_for_selector("body[data-state=ready]", timeout=TURN_TIMEOUT_MS)
        if old_zip is not None:
            error = page.evaluate(IMPORT_OLD)
            if error:
                raise RuntimeError(f"the hand-written client could not be imported: {error}")
        model = {"kind": "openai", "base_url": api.base_url, "model": "m", "api_key": "sk-b"}
        script = [text_reply(), text_reply(), text_reply("Hello", " there", ".")]
        api.script(*script, *script)
        page.evaluate(CHOOSE, model)
        page.wait_for_selector("#model-badge[data-kind=openai]", timeout=TURN_TIMEOUT_MS)
        page.fill("#chat-input", "hello")
        page.press("#chat-input", "Enter")
        page.wait_for_function("() => window.__api.firstAt !== null", timeout=TURN_TIMEOUT_MS)
        page.wait_for_selector("#transcript[data-thread-state=done]", timeout=TURN_TIMEOUT_MS)
        first = page.evaluate("window.__api.firstAt - window.__api.mark")
        page.fill("#chat-input", "hello again")
        answers = page.locator(ANSWERS).count()
        started = page.evaluate("performance.now()")
        page.press("#chat-input", "Enter")
        page.wait_for_function(TURN_DONE, arg=[ANSWERS, answers], timeout=TURN_TIMEOUT_MS)
        turn = page.evaluate("performance.now()") - started
        return {"first": float(first), "turn": float(turn)}
    finally:
        context.close()


def run(url: str, browser: Any, runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """The rows: choose-to-first-token and turn time, the SDK client against the old one."""
    from tests.e2e.openai_server import OpenAIServer

    old_zip = old_app_zip((DEMO_APP / "app.zip").read_bytes())
    clients: dict[str, bytes | None] = {"sdk": None, "old": old_zip}
    times: dict[str, list[dict[str, float]]] = {name: [] for name in clients}
    rounds = 3 if quick else 7
    with OpenAIServer() as api:
        for zipped in clients.values():  # a first page each, not counted
            one_page(browser, url, api, zipped)
        for round_index in range(rounds):
            for name in goals.rotation(list(clients), round_index):
                times[name].append(one_page(browser, url, api, clients[name]))
    return rows(times, runtime)


def rows(times: dict[str, list[dict[str, float]]], runtime: str) -> list[dict[str, Any]]:
    figures = []
    for key, label, note in (
        (
            "first",
            "API model chosen to its first token (packages loaded), OpenAI SDK client",
            "the scripted server; the page's clock; snapshot withheld in both",
        ),
        (
            "turn",
            "demo turn on the API model (3 model calls), OpenAI SDK client",
            "second turn of the page (the SDK loaded); the scripted server",
        ),
    ):
        new = [t[key] for t in times["sdk"]]
        old = [t[key] for t in times["old"]]
        q1, q2, q3 = stats.quantiles(new)
        ratios = [a / b for a, b in zip(new, old, strict=True) if b > 0]
        r1, r2, r3 = stats.quantiles(ratios)
        figures.append(
            stats.figure(
                label,
                runtime,
                q2,
                "ms",
                spread=(q1, q3),
                baseline=f"hand-written client ({OLD_REF})",
                baseline_value=stats.quantiles(old)[1],
                ratio=r2,
                ratio_spread=(r1, r3),
                note=note,
            )
        )
    return figures


def run_step(dist: Path, quick: bool, launch: dict[str, Any]) -> list[dict[str, Any]]:
    """The step of the suite: this build's demo served, in one Chromium."""
    import baseline
    import startup
    from playwright.sync_api import sync_playwright

    current = baseline.current_build(dist)
    with startup.serving(current) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch)
        try:
            runtime = f"pyodide-chromium {browser.version}"
            figures = run(url, browser, runtime, quick=quick)
        finally:
            browser.close()
    return [{"runtime": runtime, "clock_resolution": None, "figures": figures}]
