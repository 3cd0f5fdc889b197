"""Mermaid text of a drawable graph, written as LangGraph (langchain_core) writes it."""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph.drawing._model import CurveStyle, Edge, Node, NodeStyles
from pyctx_web.graph.drawing._yaml import dump_yaml

__all__ = ["draw_mermaid"]

_MARKDOWN_SPECIAL = ("*", "_", "`")
"""A name that starts and ends with one of these is wrapped in ``<p>``: Mermaid reads Markdown."""

_SAFE_ID = frozenset(string.ascii_letters + string.digits + "_-")
_LABEL_ESCAPES = {"[": "#91;", "]": "#93;", "(": "#40;", ")": "#41;", "{": "#123;"}
_LABEL_ESCAPES |= {"}": "#125;", '"': "#quot;", "<": "#60;", ">": "#62;", "|": "#124;"}


def draw_mermaid(
    nodes: Mapping[str, Node],
    edges: Sequence[Edge],
    *,
    first_node: str | None,
    last_node: str | None,
    with_styles: bool,
    curve_style: CurveStyle | str,
    node_styles: NodeStyles,
    wrap_label_n_words: int,
    frontmatter_config: Mapping[str, Any] | None,
) -> str:
    """The Mermaid flowchart of ``nodes`` and ``edges``; ``parent:child`` ids go in subgraphs."""
    out: list[str] = []
    if with_styles:
        out.append("---\n" + dump_yaml(_frontmatter(frontmatter_config, curve_style)) + "---\n")
    out.append("graph TD;\n")
    formats = {first_node: "{0}([{1}]):::first", last_node: "{0}([{1}]):::last"}
    formats.pop(None, None)
    grouped: dict[str, dict[str, Node]] = {}
    for key, node in nodes.items():
        grouped.setdefault(key.rpartition(":")[0], {})[key] = node
    if with_styles:
        out.extend(_node_line(key, node, formats) for key, node in grouped.get("", {}).items())
    groups: dict[str, list[Edge]] = {}
    for edge in edges:
        pairs = zip(edge.source.split(":"), edge.target.split(":"), strict=False)
        common = [s for s, t in pairs if s == t]
        groups.setdefault(":".join(common), []).append(edge)
    writer = _Blocks(out, grouped, groups, formats, with_styles, wrap_label_n_words)
    writer.block(groups.get("", []), "")
    for prefix, group in groups.items():
        if prefix and ":" not in prefix:
            writer.block(group, prefix)
            writer.seen.add(prefix)
    if with_styles:
        for prefix, members in grouped.items():
            if prefix and ":" not in prefix and prefix not in writer.seen:
                out.append(f"\tsubgraph {prefix}\n")
                out.extend(_node_line(key, node, formats) for key, node in members.items())
                out.append("\tend\n")
                writer.seen.add(prefix)
        out.extend(f"\tclassDef {name} {style}\n" for name, style in asdict(node_styles).items())
    return "".join(out)


class _Blocks:
    """Writes the edges of each ``subgraph ... end`` block, nested blocks inside."""

    def __init__(
        self,
        out: list[str],
        grouped: dict[str, dict[str, Node]],
        groups: dict[str, list[Edge]],
        formats: dict[str | None, str],
        with_styles: bool,
        wrap: int,
    ) -> None:
        self.out = out
        self.grouped = grouped
        self.groups = groups
        self.formats = formats
        self.with_styles = with_styles
        self.wrap = wrap
        self.seen: set[str] = set()

    def block(self, edges: list[Edge], prefix: str) -> None:
        """Write the block of ``prefix`` (none for ``""``): its nodes, edges and nested blocks."""
        boxed = bool(prefix) and not (len(edges) == 1 and edges[0].source == edges[0].target)
        if boxed:
            name = prefix.rpartition(":")[2]
            if name in self.seen:
                raise ArgumentValueError(
                    f"Found duplicate subgraph '{name}' -- this likely means that you're "
                    "reusing a subgraph node with the same name. Please adjust your graph "
                    "to have subgraph nodes with unique names."
                )
            self.seen.add(name)
            self.out.append(f"\tsubgraph {name}\n")
            if self.with_styles:
                members = self.grouped.get(prefix, {}).items()
                self.out.extend(_node_line(key, node, self.formats) for key, node in members)
        self.out.extend(_edge_line(edge, self.wrap) for edge in edges)
        for nested, group in self.groups.items():
            if nested.startswith(prefix + ":") and ":" not in nested[len(prefix) + 1 :]:
                self.block(group, nested)
        if boxed:
            self.out.append("\tend\n")


def _frontmatter(config: Mapping[str, Any] | None, curve: CurveStyle | str) -> dict[str, Any]:
    """``config`` with ``config.flowchart.curve`` set to the curve style."""
    if isinstance(curve, str):
        values = {style.value for style in CurveStyle}
        if curve not in values:
            raise ArgumentValueError(
                f"curve_style must be a CurveStyle or one of {sorted(values)}, not {curve!r}"
            )
    else:
        curve = curve.value
    config = dict(config or {})
    inner = dict(config.get("config", {}))
    inner["flowchart"] = {**inner.get("flowchart", {}), "curve": curve}
    config["config"] = inner
    return config


def _node_line(key: str, node: Node, formats: Mapping[str | None, str]) -> str:
    name = node.name.rpartition(":")[2]
    label = f"<p>{name}</p>" if _markdown(name) else name
    notes = [
        _escape_label(f"{k} = {text}")
        for k, v in (node.metadata or {}).items()
        if (text := _metadata_text(v)) is not None
    ]
    if notes:
        label += "<hr/><small><em>" + "\n".join(notes) + "</em></small>"
    return "\t" + formats.get(key, "{0}({1})").format(_safe_id(key), label) + "\n"


def _markdown(name: str) -> bool:
    return name.startswith(_MARKDOWN_SPECIAL) and name.endswith(_MARKDOWN_SPECIAL)


def _edge_line(edge: Edge, wrap: int) -> str:
    if edge.data is None:
        arrow = " -.-> " if edge.conditional else " --> "
    else:
        words = str(edge.data).split()
        label = str(edge.data)
        if len(words) > wrap:
            label = "&nbsp<br>&nbsp".join(
                " ".join(words[i : i + wrap]) for i in range(0, len(words), wrap)
            )
        arrow = (
            f" -. &nbsp;{label}&nbsp; .-> " if edge.conditional else f" -- &nbsp;{label}&nbsp; --> "
        )
    return f"\t{_safe_id(edge.source)}{arrow}{_safe_id(edge.target)};\n"


def _safe_id(key: str) -> str:
    """``key`` with each character but ``[A-Za-z0-9_-]`` written ``\\`` and its hex code."""
    return "".join(ch if ch in _SAFE_ID else f"\\{ord(ch):x}" for ch in key)


def _escape_label(text: str) -> str:
    text = text.replace("#", "#35;")
    for ch, entity in _LABEL_ESCAPES.items():
        text = text.replace(ch, entity)
    return text


def _metadata_text(value: Any) -> str | None:
    scalars = (str, int, float, bool)
    if isinstance(value, scalars):
        return str(value)
    if isinstance(value, list | tuple | set) and all(isinstance(v, scalars) for v in value):
        items = [str(v) for v in value]
        return ", ".join(sorted(items) if isinstance(value, set) else items)
    return None
