"""Whether a Content-Security-Policy lets the worker fetch a URL (its ``connect-src``).

A browser refuses a fetch that the policy does not allow with nothing more than
"Failed to fetch", so the model checks the URL first and says which flag of
``./build.sh demo`` allows it. The source matching follows CSP Level 3 for what
a fetch to an http(s) API needs: ``*``, ``'self'``, ``'none'``, scheme sources
and host sources with wildcard hosts and ports and paths; ``connect-src`` falls
back to ``default-src``; every policy of a header with several must allow.
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["blocked_message", "connect_allowed", "origin_of"]

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _sources(policy: str) -> list[str] | None:
    """The ``connect-src`` (or ``default-src``) sources of one policy, ``None`` if it has none."""
    directives: dict[str, list[str]] = {}
    for directive in policy.split(";"):
        tokens = directive.split()
        if tokens:
            directives.setdefault(tokens[0].lower(), tokens[1:])
    if "connect-src" in directives:
        return directives["connect-src"]
    return directives.get("default-src")


def _scheme_matches(source: str, url: str) -> bool:
    # A source for http also allows https, and ws allows wss (CSP's "scheme-part match").
    return source == url or (source, url) in {("http", "https"), ("ws", "wss")}


def _port(scheme: str, port: int | None) -> int | None:
    return port if port is not None else _DEFAULT_PORTS.get(scheme)


def _host_source_matches(source: str, url: str, self_origin: str) -> bool:
    target = urlsplit(url)
    scheme, rest = source.split("://", 1) if "://" in source else ("", source)
    if not scheme:
        scheme = urlsplit(self_origin).scheme or "https"
    host_port, slash, path = rest.partition("/")
    host, _, port_text = host_port.partition(":")
    target_host = (target.hostname or "").lower()
    host = host.lower()
    if host.startswith("*."):
        if not target_host.endswith(host[1:]):
            return False
    elif host != target_host:
        return False
    if not _scheme_matches(scheme.lower(), target.scheme):
        return False
    if port_text != "*":
        wanted = int(port_text) if port_text.isdigit() else _DEFAULT_PORTS.get(scheme.lower())
        actual = _port(target.scheme, target.port)
        # A default port also stands for the default port of the upgraded scheme.
        upgraded = wanted == _DEFAULT_PORTS.get(scheme.lower()) == 80 and actual == 443
        if wanted != actual and not upgraded:
            return False
    if slash and path:
        wanted_path = "/" + path
        if wanted_path.endswith("/"):
            return (target.path or "/").startswith(wanted_path)
        return target.path == wanted_path
    return True


def _source_matches(source: str, url: str, self_origin: str) -> bool:
    lowered = source.lower()
    scheme = urlsplit(url).scheme
    if lowered == "*":
        return scheme in ("http", "https", "ws", "wss")
    if lowered == "'self'":
        me = urlsplit(self_origin)
        target = urlsplit(url)
        mine, theirs = _port(me.scheme, me.port), _port(target.scheme, target.port)
        return (
            target.hostname == me.hostname
            and _scheme_matches(me.scheme, target.scheme)
            and (mine == theirs or (mine, theirs) == (80, 443))
        )
    if lowered.startswith("'"):
        return False  # 'none', nonces, hashes and keywords allow no fetch
    if lowered.endswith(":") and "/" not in lowered:
        return _scheme_matches(lowered[:-1], scheme)
    return _host_source_matches(source, url, self_origin)


def connect_allowed(header: str | None, url: str, self_origin: str) -> bool:
    """Whether the policy ``header`` lets a page at ``self_origin`` fetch ``url``."""
    if not header:
        return True
    for policy in header.split(","):
        sources = _sources(policy)
        if sources is not None and not any(_source_matches(s, url, self_origin) for s in sources):
            return False
    return True


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def blocked_message(url: str) -> str:
    """What the settings panel says when the policy does not allow fetching ``url``."""
    origin = origin_of(url)
    return (
        f"The page's Content-Security-Policy does not allow connecting to {origin}; "
        f"serve the demo with ./build.sh demo --api-origin {origin}"
    )
