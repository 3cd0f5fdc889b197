"""The JavaScript module ``demo/worker.js`` registers as ``demo_bridge`` for the demo app."""

from collections.abc import Callable

# Posts a JSON text to the page.
post: Callable[[str], object]
# The page's Content-Security-Policy header as served, or null when it had none.
content_security_policy: str | None
