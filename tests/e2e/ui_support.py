"""Helpers of the e2e tests of the demo's agent UI: approvals, edits, branches, the graph view."""

from __future__ import annotations

from typing import Any

from .test_chat import TURN_TIMEOUT_MS, chat, wait_turn

REPORT_REQUEST = "send the daily report to my team"
"""A request for which the offline model proposes ``send_email`` and waits for approval."""


def ask_for_approval(page: Any) -> Any:
    """Send the report request and return the approval card once it is shown."""
    chat(page, REPORT_REQUEST)
    wait_turn(page, "waiting")
    card = page.locator("#approval-card")
    card.wait_for(state="visible", timeout=TURN_TIMEOUT_MS)
    return card


def action(page: Any, tool: str = "send_email") -> Any:
    """The approval card's entry for one action request."""
    return page.locator(f'#approval-card .action-request[data-tool="{tool}"]')


def tool_lines(page: Any) -> list[dict[str, str]]:
    """The transcript's tool lines: their tool, status and text."""
    lines: list[dict[str, str]] = page.eval_on_selector_all(
        "#transcript .tool-line",
        "els => els.map(el => ({tool: el.dataset.tool, status: el.dataset.status,"
        " text: el.textContent}))",
    )
    return lines


def branch_position(entry: Any) -> str:
    """The "i / n" text of the branch switcher of a transcript entry (a locator)."""
    return str(entry.locator(".branch-position").inner_text()).strip()


def graph_marks(page: Any) -> dict[str, str]:
    """Each node of the graph view with its state (idle, running, asking)."""
    pairs = page.eval_on_selector_all(
        "#graph-view g.graph-node", "els => els.map(el => [el.dataset.node, el.dataset.state])"
    )
    return dict(pairs)


def server_graph(page: Any) -> dict[str, Any]:
    """Ask the server for the assistant's graph (GET /assistants/{id}/graph), as the page
    does, and return the reply."""
    graph: dict[str, Any] = page.evaluate(
        """async () => {
          const api = await window.__demo.client();
          const [assistant] = await api.assistants.search({graphId: "agent", limit: 1});
          return api.assistants.getGraph(assistant.assistant_id);
        }"""
    )
    return graph
