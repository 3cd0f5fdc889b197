"""The OpenAI-compatible model's settings, description and request body, on CPython."""

from __future__ import annotations

import json
import re

import pytest
from openai_model import OpenAICompatibleModel, page_policy
from protocol import ModelError

KEY = "sk-test-unit-4kP"


def test_the_key_is_in_no_repr_description_or_body() -> None:
    """repr, describe() and the request body never hold the key; describe() gives the settings
    a run's context names the model with, its reply limits included."""
    model = OpenAICompatibleModel("http://127.0.0.1:8080/v1/", " m1 ", f" {KEY} ", 5)
    assert repr(model) == "OpenAICompatibleModel(base_url='http://127.0.0.1:8080/v1', model='m1')"
    assert model.describe() == {
        "kind": "openai",
        "base_url": "http://127.0.0.1:8080/v1",
        "model": "m1",
        "token_delay_ms": 5,
        "idle_timeout_s": 60.0,
        "deadline_s": 300.0,
        "max_reply_chars": 1_000_000,
    }
    assert model.url == "http://127.0.0.1:8080/v1/chat/completions"
    body = model.request([{"role": "user", "content": "hi"}], [{"type": "function"}])
    assert body == {
        "model": "m1",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "tools": [{"type": "function"}],
    }
    assert KEY not in repr(model) + json.dumps(model.describe()) + json.dumps(body)


def test_no_tools_means_no_tools_field() -> None:
    """A request without tools has no tools field (some servers refuse an empty list)."""
    model = OpenAICompatibleModel("http://127.0.0.1:8080/v1", "m", "")
    assert "tools" not in model.request([])


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"base_url": "ftp://h/v1", "model": "m", "api_key": "k"},
            "The base URL must start with http:// or https://, not 'ftp://h/v1'.",
        ),
        (
            {"base_url": "127.0.0.1:8080", "model": "m", "api_key": "k"},
            "The base URL must start with http:// or https://, not '127.0.0.1:8080'.",
        ),
        (
            {"base_url": "http://h/v1", "model": " ", "api_key": "k"},
            "The OpenAI-compatible model needs a model.",
        ),
        (
            {"base_url": "http://h/v1", "model": "m"},
            "The OpenAI-compatible model needs an API key.",
        ),
        ({"model": "m", "api_key": "k"}, "The OpenAI-compatible model needs a base URL."),
    ],
)
def test_bad_settings_name_the_field(settings: dict[str, str], message: str) -> None:
    """from_settings refuses a missing field or a base URL that is not http(s) with ModelError."""
    with pytest.raises(ModelError, match="^" + re.escape(message) + "$"):
        OpenAICompatibleModel.from_settings(settings, 0)


def test_a_policy_that_blocks_the_url_is_refused_with_the_flag() -> None:
    """A base URL that the given connect-src blocks is refused, naming --api-origin."""
    policy = "connect-src 'self' http://127.0.0.1:*"
    with pytest.raises(
        ModelError,
        match=(
            r"^The page's Content-Security-Policy does not allow connecting to "
            r"https://api\.example\.com; serve the demo with \./build\.sh demo "
            r"--api-origin https://api\.example\.com$"
        ),
    ):
        OpenAICompatibleModel(
            "https://api.example.com/v1",
            "m",
            "k",
            content_security_policy=policy,
            page_origin="http://127.0.0.1:8000",
        )
    allowed = OpenAICompatibleModel(
        "http://127.0.0.1:9/v1", "m", "k", content_security_policy=policy, page_origin=""
    )
    assert allowed.base_url == "http://127.0.0.1:9/v1"


def test_outside_pyodide_there_is_no_policy() -> None:
    """On CPython page_policy() finds no Content-Security-Policy to check."""
    assert page_policy() == (None, "")


def test_the_site_carries_the_packages_the_model_loads() -> None:
    """The static site puts in its Pyodide folder the wheels of the packages the model loads."""
    from sdk_transport import SDK_PACKAGES

    from tools.site import API_MODEL_PACKAGES

    assert API_MODEL_PACKAGES == SDK_PACKAGES


def test_a_run_context_made_from_the_description_names_the_same_model_and_limits() -> None:
    """describe() given back as a run's context.model (the key remembered by the worker) makes
    a model with the same settings and reply limits."""
    import models

    settings = {"kind": "openai", "base_url": "http://127.0.0.1:8080/v1", "model": "m1"}
    chosen = models.make_model({**settings, "api_key": KEY, "idle_timeout_s": 1, "deadline_s": 20})
    models.remember_key(settings["base_url"], KEY)
    try:
        again = models.model_for({"model": chosen.describe()})
    finally:
        models.forget_models()
    assert again.describe() == chosen.describe()
    assert again.describe()["idle_timeout_s"] == 1
