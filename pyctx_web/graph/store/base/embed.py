"""Embeddings for a store's vector index, and the text at a path of a stored value.

``index={"embed": ...}`` takes a function from a list of texts to a list of
vectors (sync or ``async``), or an object with LangChain's ``Embeddings``
methods (``embed_documents``/``embed_query``, and their ``a``-forms when it
has them). A model name (``"openai:..."``) is refused: no model is fetched.
``fields`` name the parts of a value to embed, as :func:`get_text_at_path`
reads them.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError

__all__ = [
    "AEmbeddingsFunc",
    "Embedder",
    "EmbeddingsFunc",
    "ensure_embeddings",
    "get_text_at_path",
    "tokenize_path",
]

EmbeddingsFunc = Callable[[Sequence[str]], list[list[float]]]
"""A function that embeds a list of texts."""
AEmbeddingsFunc = Callable[[Sequence[str]], Awaitable[list[list[float]]]]
"""An async function that embeds a list of texts."""


class Embedder:
    """Embeds texts with what ``index={"embed": ...}`` gave, checking the vectors' length."""

    def __init__(self, embed: Any, dims: int | None) -> None:
        self.source = embed
        self.dims = dims

    def _checked(self, texts: Sequence[str], vectors: Any) -> list[list[float]]:
        if not isinstance(vectors, list) or len(vectors) != len(texts):
            raise ArgumentValueError(
                f"the store's embed returned {type(vectors).__name__} for {len(texts)} text(s);"
                " it must return one vector per text"
            )
        for vector in vectors:
            if self.dims is not None and len(vector) != self.dims:
                raise ArgumentValueError(
                    f"the store's embed returned a vector of {len(vector)} numbers;"
                    f" the index was configured with dims={self.dims}"
                )
        return [[float(x) for x in vector] for vector in vectors]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """The vectors of ``texts``, computed in the calling thread."""
        if not texts:
            return []
        source = self.source
        if hasattr(source, "embed_documents"):
            return self._checked(texts, source.embed_documents(list(texts)))
        if inspect.iscoroutinefunction(source):
            raise ArgumentTypeError(
                "the store's embed is an async function; call the store's async methods"
                " (aput, asearch...) or give a sync function"
            )
        return self._checked(texts, source(list(texts)))

    async def aembed(self, texts: Sequence[str]) -> list[list[float]]:
        """The vectors of ``texts``, awaiting the async form when there is one."""
        if not texts:
            return []
        source = self.source
        if hasattr(source, "aembed_documents"):
            return self._checked(texts, await source.aembed_documents(list(texts)))
        if inspect.iscoroutinefunction(source):
            return self._checked(texts, await source(list(texts)))
        return self.embed(texts)

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search query."""
        if hasattr(self.source, "embed_query"):
            return self._checked([text], [self.source.embed_query(text)])[0]
        return self.embed([text])[0]

    async def aembed_query(self, text: str) -> list[float]:
        """The vector of a search query, awaiting the async form when there is one."""
        if hasattr(self.source, "aembed_query"):
            return self._checked([text], [await self.source.aembed_query(text)])[0]
        return (await self.aembed([text]))[0]

    # LangChain's Embeddings method names, for code that calls ensure_embeddings() itself.
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """:meth:`embed`, under LangChain's name."""
        return self.embed(texts)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """:meth:`aembed`, under LangChain's name."""
        return await self.aembed(texts)


def ensure_embeddings(embed: Any, dims: int | None = None) -> Embedder:
    """Check ``embed`` (a function or an ``Embeddings`` object) and wrap it.

    With ``dims``, every vector it returns must have that many numbers.
    """
    if isinstance(embed, str):
        raise ArgumentValueError(
            f"index embed {embed!r} names a model; pyctx_web fetches no model: give a function"
            " from a list of texts to a list of vectors, or an Embeddings object"
        )
    if not (hasattr(embed, "embed_documents") or callable(embed)):
        raise ArgumentTypeError(
            "index embed must be a function from a list of texts to a list of vectors,"
            f" or an Embeddings object, not {type(embed).__qualname__!r}"
        )
    if dims is not None and (isinstance(dims, bool) or not isinstance(dims, int) or dims < 1):
        raise ArgumentValueError(f"index dims must be an int >= 1, not {dims!r}")
    return Embedder(embed, dims)


_STEP = re.compile(r"\[(-?\d+|\*)\]")


def tokenize_path(path: str) -> list[str]:
    """Split a path (``"a.b[0].{c,d}"``) into its steps; raise ``ValueError`` when malformed."""
    steps: list[str] = []
    i = 0
    while i < len(path):
        char = path[i]
        if char == ".":
            i += 1
        elif char == "[":
            match = _STEP.match(path, i)
            if match is None:
                raise ArgumentValueError(f"bad index in path {path!r}")
            steps.append(match.group(0))
            i = match.end()
        elif char == "{":
            end = path.find("}", i)
            if end < 0 or "[" in path[i:end] or "{" in path[i + 1 : end]:
                raise ArgumentValueError(f"bad group in path {path!r}")
            steps.append(path[i : end + 1])
            i = end + 1
        else:
            end = i
            while end < len(path) and path[end] not in ".[{":
                end += 1
            steps.append(path[i:end])
            i = end
    return steps


def _text(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (bool, int, float)):
        return [str(value)]
    if isinstance(value, Mapping):
        value = dict(value)
    return [json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)]


def _walk(value: Any, steps: list[str]) -> list[str]:
    if not steps:
        return _text(value)
    step, rest = steps[0], steps[1:]
    if step.startswith("{"):
        found: list[str] = []
        for part in step[1:-1].split(","):
            found.extend(_walk(value, tokenize_path(part.strip()) + rest))
        return found
    if step.startswith("["):
        if not isinstance(value, list):
            return []
        if step == "[*]":
            return [text for element in value for text in _walk(element, rest)]
        index = int(step[1:-1])
        return _walk(value[index], rest) if -len(value) <= index < len(value) else []
    if not isinstance(value, Mapping):
        return []
    if step == "*":
        return [text for element in value.values() for text in _walk(element, rest)]
    return _walk(value[step], rest) if step in value else []


def get_text_at_path(obj: Any, path: str | list[str]) -> list[str]:
    """The texts at ``path`` in ``obj`` (``"$"`` or ``""``: the whole value as JSON).

    Paths: ``a.b``, ``a[0]``, ``a[-1]``, ``a[*]``, ``a.*``, ``{a,b.c}``. A
    missing part or a malformed path gives ``[]``.
    """
    if obj is None:
        return []
    steps = path if isinstance(path, list) else None
    if steps is None:
        if path in ("", "$"):
            return _text(obj)
        try:
            steps = tokenize_path(str(path))
        except ValueError:
            return []
    try:
        return _walk(obj, steps)
    except ValueError:
        return []
