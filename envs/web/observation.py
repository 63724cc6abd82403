"""Page observations: WebArena's accessibility tree, tabs, URL, screenshot and pruned HTML.

The tree comes straight from CDP ``Accessibility.getFullAXTree`` (one call, no DOM walk in
Python or JavaScript), rendered as WebArena renders it: one line per node,
``[id] role 'name' prop: value``, tab-indented by depth. Ignored nodes and nameless generic
containers are left out (their children move up), and a static text equal to its parent's name is
dropped. The id is the node's ``backendDOMNodeId``: stable while the element exists, and the
executor resolves it back to the element with ``DOM.resolveNode``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

PRUNED_ROLES = frozenset({"generic", "none", "presentation", "LineBreak", "InlineTextBox",
                          "paragraph", "group", "Section", "LabelText", "list", "listitem",
                          "strong", "emphasis", "Canvas", "ListMarker", "Pre", "Div"})
"""Roles shown only when they carry a name."""
IGNORED_PROPERTIES = frozenset({"focusable", "editable", "readonly", "level", "settable",
                                "multiline", "invalid", "hiddenRoot", "url", "root"})
MAX_NAME = 200


@dataclass
class AXTree:
    """A rendered accessibility tree and the ids it shows."""

    text: str
    ids: set[int] = field(default_factory=set)
    """Element ids present in :attr:`text` (what an action may name)."""
    nodes: int = 0
    """AX nodes Chromium returned (before pruning)."""


def _value(prop: dict[str, Any] | None) -> Any:
    if not prop:
        return None
    return prop.get("value")


def _props(node: dict[str, Any]) -> str:
    parts = []
    value = _value(node.get("value"))
    if value not in (None, ""):
        parts.append(f"value: {_clip(str(value))!r}")
    for prop in node.get("properties", ()):
        name = prop.get("name")
        if name in IGNORED_PROPERTIES:
            continue
        val = _value(prop.get("value"))
        if val in (None, False, "", "false") and name not in ("checked", "selected", "expanded"):
            continue
        if isinstance(val, list):
            continue
        parts.append(f"{name}: {val}")
    return (" " + " ".join(parts)) if parts else ""


def _clip(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= MAX_NAME else text[:MAX_NAME] + "..."


def _inside(bounds: dict[int, tuple[float, float, float, float]], backend: int | None,
            viewport: tuple[float, float]) -> bool:
    box = bounds.get(backend) if backend is not None else None
    if box is None:
        return True
    x, y, w, h = box
    return x + w > 0 and y + h > 0 and x < viewport[0] and y < viewport[1]


def render_ax_tree(
    nodes: list[dict[str, Any]],
    *,
    bounds: dict[int, tuple[float, float, float, float]] | None = None,
    viewport: tuple[float, float] = (1280, 720),
    max_lines: int = 1500,
) -> AXTree:
    """Render CDP AX nodes; with ``bounds`` (backend id -> x, y, w, h) keep on-screen nodes only."""
    by_id = {n["nodeId"]: n for n in nodes}
    children = {n["nodeId"]: n.get("childIds", ()) for n in nodes}
    referenced = {c for kids in children.values() for c in kids}
    roots = [n for n in nodes if n["nodeId"] not in referenced]
    lines: list[str] = []
    ids: set[int] = set()
    stack: list[tuple[str, int, str]] = [(r["nodeId"], 0, "") for r in reversed(roots)]
    while stack and len(lines) < max_lines:
        node_id, depth, parent_name = stack.pop()
        node = by_id.get(node_id)
        if node is None:
            continue
        role = str(_value(node.get("role")) or "")
        name = _clip(str(_value(node.get("name")) or ""))
        backend = node.get("backendDOMNodeId")
        shown = not node.get("ignored", False) and role not in ("RootWebArea", "WebArea")
        if role == "InlineTextBox":
            continue
        if shown and role in PRUNED_ROLES and not name:
            shown = False
        if shown and role == "StaticText" and (not name or name == parent_name):
            shown = False
        if shown and bounds is not None and not _inside(bounds, backend, viewport):
            shown = False
        if role in ("RootWebArea", "WebArea") and not lines:
            lines.append(f"[{backend}] {role} {name!r}" if backend is not None else role)
            if backend is not None:
                ids.add(int(backend))
            shown_depth = 1
        elif shown:
            label = f"[{backend}] " if backend is not None else ""
            lines.append("\t" * depth + f"{label}{role} {name!r}{_props(node)}")
            if backend is not None:
                ids.add(int(backend))
            shown_depth = depth + 1
        else:
            shown_depth = depth
        next_parent = name if shown else parent_name
        for child in reversed(list(children.get(node_id, ()))):
            stack.append((child, shown_depth, next_parent))
    if stack:
        lines.append(f"... [tree cut at {max_lines} lines]")
    return AXTree("\n".join(lines), ids, len(nodes))


_SCRIPT = re.compile(r"<(script|style|noscript|svg)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_ATTR = re.compile(r"\s(?:style|class|on\w+|data-(?!bbox)[\w-]+)=(\"[^\"]*\"|'[^']*')",
                   re.IGNORECASE)


def prune_html(html: str, max_chars: int = 20000) -> str:
    """HTML without scripts, styles, comments, inline styles, classes and event handlers."""
    html = _SCRIPT.sub("", html)
    html = _COMMENT.sub("", html)
    html = _ATTR.sub("", html)
    html = re.sub(r"\n\s*\n+", "\n", html)
    return html if len(html) <= max_chars else html[:max_chars] + "\n<!-- truncated -->"


def render_tabs(titles: list[str], active: int) -> str:
    """``Tab 0 (current): title`` lines, as WebArena's prompt lists them."""
    return "\n".join(
        f"Tab {i}{' (current)' if i == active else ''}: {_clip(t) or '(untitled)'}"
        for i, t in enumerate(titles)
    )


__all__ = ["AXTree", "prune_html", "render_ax_tree", "render_tabs"]
