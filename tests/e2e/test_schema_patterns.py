"""The edit form refuses a schema pattern whose matching can take exponential time, at once."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import PageWatch

HOSTILE = """async () => {
  const { schemaForm } = await import("./js/schemaform.js");
  const schema = { type: "object", properties: { code: { type: "string", pattern: "^(a+)+$" } } };
  const form = schemaForm(schema, { code: "a".repeat(26) + "!" });
  document.body.append(form.element);
  const read = form.read();
  const errors = [...form.element.querySelectorAll(".field-error")].map((e) => e.textContent);
  return { read, errors: errors.filter(Boolean) };
}"""


def test_a_nested_quantifier_pattern_is_refused_and_the_page_responds(
    watched_page: PageWatch, demo_url: str
) -> None:
    """A form whose schema has ^(a+)+$ says why it cannot check the field, without matching it."""
    page: Any = watched_page.page
    page.goto(demo_url)
    message = (
        "code cannot be checked: the pattern '^(a+)+$' repeats a group that contains a "
        "quantifier, which can take exponential time to match."
    )
    assert page.evaluate(HOSTILE) == {"read": {"ok": False, "error": message}, "errors": [message]}
    assert page.evaluate("1 + 1") == 2
    assert watched_page.console_errors == []
