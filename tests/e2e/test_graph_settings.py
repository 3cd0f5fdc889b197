"""The graph view marks the running and the asking node; the settings show a refused model."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import PageWatch
from .test_chat import (
    TURN_TIMEOUT_MS,
    answer,
    assert_clean,
    chat,
    configure_offline,
    history,
    open_ready,
    wait_turn,
)
from .ui_support import graph_marks, server_graph


def test_graph_view_draws_the_graph_and_marks_the_asking_then_the_running_node(
    watched_page: PageWatch, demo_url: str
) -> None:
    """The SVG has every node and edge; the node that asked, then the one running, is marked."""
    page = open_ready(watched_page, demo_url)
    graph = server_graph(page)
    page.click("#toggle-graph")
    expect(page.locator("#toggle-graph")).to_have_attribute("aria-expanded", "true")
    page.wait_for_selector("#graph-view svg g.graph-node", timeout=TURN_TIMEOUT_MS)
    assert set(graph_marks(page)) == {n["id"] for n in graph["nodes"]}
    assert {"__start__", "intake", "enrich", "plan", "respond", "__end__"} <= set(graph_marks(page))
    assert page.locator("#graph-view path.graph-edge").count() == len(graph["edges"])
    dashed = page.locator("#graph-view path.graph-edge-conditional").count()
    assert dashed == sum(1 for e in graph["edges"] if e.get("conditional"))
    tops = page.eval_on_selector_all(
        "#graph-view g.graph-node",
        "els => Object.fromEntries(els.map(el => [el.dataset.node, el.getBBox().y]))",
    )
    assert tops["__start__"] < tops["intake"] < tops["enrich"] < tops["plan"] < tops["respond"]
    assert tops["respond"] < tops["__end__"]
    assert set(graph_marks(page).values()) == {"idle"}

    configure_offline(page, 300)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    # The node that asked, as the thread stores it; the page marks it once it has read the
    # thread's history (the card itself comes from the run's stream, which names no node).
    node = history(page, page.evaluate("window.__demo.activeThreadId"))["pending"]["node"]
    legend = page.locator("#graph-legend")
    expect(legend).to_have_attribute("data-asking", node, timeout=TURN_TIMEOUT_MS)
    marks = graph_marks(page)
    assert marks[node] == "asking"
    assert [n for n, s in marks.items() if s != "idle"] == [node]
    assert node in legend.inner_text()

    answer(page, "draft a reply")
    page.wait_for_selector("#transcript .msg-streaming", timeout=TURN_TIMEOUT_MS)
    running = [n for n, s in graph_marks(page).items() if s == "running"]
    assert len(running) == 1
    assert running[0] not in ("__start__", "__end__")
    assert legend.get_attribute("data-running") == running[0]
    assert running[0] in legend.inner_text()
    label = page.locator(f'#graph-view g.graph-node[data-node="{running[0]}"] text')
    assert label.text_content() == f"▶ {running[0]}"
    wait_turn(page, "done")
    assert set(graph_marks(page).values()) == {"idle"}
    assert legend.inner_text() == "Nothing is running."

    page.click("#close-graph")
    assert page.locator("#graph-panel").is_hidden()
    assert_clean(watched_page)


def test_a_refused_model_setting_shows_its_message_in_the_settings_dialog(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A base URL the page's policy blocks is refused; the dialog stays open and says why."""
    page = open_ready(watched_page, demo_url)
    page.click("#open-settings")
    page.check("input[name=kind][value=openai]")
    page.fill("#base-url", "http://api.example.com/v1")
    page.fill("#model-name", "some-model")
    page.fill("#api-key", "sk-never-sent")
    page.click("#settings-apply")
    error = page.locator("#settings-error")
    expect(error).to_be_visible(timeout=TURN_TIMEOUT_MS)
    assert "--api-origin" in error.inner_text()
    assert page.locator("#settings").is_visible()
    assert page.get_attribute("#model-badge", "data-kind") == "offline"
    assert page.locator("#error-banner").is_hidden()

    page.check("input[name=kind][value=offline]")
    page.click("#settings-apply")
    expect(page.locator("#settings")).to_be_hidden()
    assert error.is_hidden()
    assert_clean(watched_page)
