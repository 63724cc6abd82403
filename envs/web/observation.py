"""Page observations: WebArena's accessibility tree, tabs, URL, screenshot and pruned HTML.

The tree comes straight from CDP ``Accessibility.getFullAXTree`` (one call, no DOM walk in
Python or JavaScript), rendered as WebArena renders it: one line per node,
``[id] role 'name' prop: value``, tab-indented by depth. Ignored nodes and nameless generic
containers are left out (their children move up), and a static text equal to its parent's name is
dropped.

Element ids are numbers given in tree order, as BrowserGym's ``bid``: the first observation of a
document numbers its elements 1, 2, 3... and an element keeps its number while its document lives
(:class:`ElementIds`; elements that appear later get the next numbers). Chromium's own
``backendDOMNodeId`` depends on the renderer's history and on timing, so showing it would make
the same page give different observations; the env maps an id back to the backend node before
acting on it.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Hashable
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
    backend: dict[int, int] = field(default_factory=dict)
    """Shown id -> Chromium ``backendDOMNodeId`` of every element in :attr:`text`."""


class ElementIds:
    """Numbers elements per document in the order they are first shown, stable while it lives.

    :meth:`enter` selects the document (a new one starts again at 1); :meth:`number` gives a
    backend node its id, :meth:`backend` maps an id back. The last ``keep`` documents are
    remembered, so going back to a tab shows the ids it showed before.
    """

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep
        self._docs: OrderedDict[Hashable, tuple[dict[int, int], dict[int, int]]] = OrderedDict()
        self._ids: dict[int, int] = {}
        self._backends: dict[int, int] = {}

    def enter(self, document: Hashable) -> None:
        """Make ``document`` (any key naming one loaded document) the current one."""
        maps = self._docs.pop(document, None) or ({}, {})
        self._docs[document] = maps
        while len(self._docs) > self.keep:
            self._docs.popitem(last=False)
        self._ids, self._backends = maps

    def number(self, backend: int) -> int:
        """The id of backend node ``backend`` in the current document (a new one if unseen)."""
        bid = self._ids.get(backend)
        if bid is None:
            bid = self._ids[backend] = len(self._ids) + 1
            self._backends[bid] = backend
        return bid

    def backend(self, bid: int) -> int | None:
        """The backend node of id ``bid`` in the current document, or None."""
        return self._backends.get(bid)

    def known(self, backend: int) -> int | None:
        """The id already given to ``backend`` in the current document, or None."""
        return self._ids.get(backend)

    def clear(self) -> None:
        """Forget every document (a new episode)."""
        self._docs.clear()
        self._ids, self._backends = {}, {}


def document_key(nodes: list[dict[str, Any]]) -> int | None:
    """The ``backendDOMNodeId`` of the tree's root (the document), which names the page load."""
    for node in nodes[:1]:
        backend = node.get("backendDOMNodeId")
        return int(backend) if backend is not None else None
    return None


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
    number: Callable[[int], int] | None = None,
) -> AXTree:
    """Render CDP AX nodes; with ``bounds`` (backend id -> x, y, w, h) keep on-screen nodes only.

    ``number`` gives a backend node its shown id (an :class:`ElementIds`'s :meth:`~ElementIds.
    number`); by default elements are numbered 1, 2, 3... in tree order.
    """
    number = number or ElementIds().number
    by_id = {n["nodeId"]: n for n in nodes}
    children = {n["nodeId"]: n.get("childIds", ()) for n in nodes}
    referenced = {c for kids in children.values() for c in kids}
    roots = [n for n in nodes if n["nodeId"] not in referenced]
    lines: list[str] = []
    shown_ids: dict[int, int] = {}
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
        root = role in ("RootWebArea", "WebArea") and not lines
        if root or shown:
            label = ""
            if backend is not None:
                bid = number(int(backend))
                shown_ids[bid] = int(backend)
                label = f"[{bid}] "
            if root:
                lines.append(f"{label}{role} {name!r}" if label else role)
                shown_depth = 1
            else:
                lines.append("\t" * depth + f"{label}{role} {name!r}{_props(node)}")
                shown_depth = depth + 1
        else:
            shown_depth = depth
        next_parent = name if shown else parent_name
        for child in reversed(list(children.get(node_id, ()))):
            stack.append((child, shown_depth, next_parent))
    if stack:
        lines.append(f"... [tree cut at {max_lines} lines]")
    return AXTree("\n".join(lines), set(shown_ids), len(nodes), shown_ids)


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


__all__ = ["AXTree", "ElementIds", "document_key", "prune_html", "render_ax_tree", "render_tabs"]
