"""GTK apps' widget trees read over AT-SPI, as text for the observation.

The desktop runs a private accessibility bus (:attr:`DesktopSandbox.a11y_address`); GTK apps
(mousepad, gnumeric) publish their widgets on it. :func:`accessibility_tree` walks the registry's
applications over D-Bus with jeepney (pure Python, no GObject): role, name, box on screen and,
for text widgets, the first characters of their text. The walk only descends into showing
widgets, skips the children of huge containers (a spreadsheet's grid has millions of cells) and
stops at a node or time budget, so one observation never hangs on a busy app.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from agentgym.errors import missing_extra

logger = logging.getLogger(__name__)

ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT = "org.a11y.atspi.Component"
TEXT = "org.a11y.atspi.Text"
REGISTRY = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
STATE_SHOWING = 25
"""Bit of ``ATSPI_STATE_SHOWING`` in the first word of ``GetState``."""
MAX_CHILDREN = 100
"""Containers with more children are listed, not walked."""
TEXT_CHARS = 200
"""Characters of a text widget's content shown."""
SKIP_UNNAMED = {"filler", "panel", "scroll pane", "viewport", "page tab", "page tab list",
                "layered pane", "separator", "unknown", "redundant object"}
"""Roles left out of the rendering when they have neither a name nor text (pure layout)."""
NO_TEXT = {"label", "menu", "menu item", "push button", "toggle button", "check box",
           "radio button", "page tab"}
"""Roles whose text is their name (not read again)."""


@dataclass
class A11yNode:
    """One widget: its role, name, screen box and (text widgets) text."""

    role: str
    name: str
    box: tuple[int, int, int, int] | None
    """``(x, y, width, height)`` in screen pixels, or None when it has no component."""
    text: str | None = None
    children: int = 0
    """How many children it has (walked or not)."""


class _Walker:
    """One breadth-first walk of the bus within a node and time budget.

    Each level's queries go out together and their replies are matched by serial, so a walk
    costs two round trips per tree level instead of several per widget.
    """

    def __init__(self, conn: Any, max_nodes: int, deadline: float) -> None:
        self.conn, self.max_nodes, self.deadline = conn, max_nodes, deadline
        self.nodes: list[tuple[tuple[int, ...], A11yNode]] = []

    def batch(self, calls: list[tuple[tuple[str, str], str, str, str | None, tuple[Any, ...]]]
              ) -> list[Any]:
        """Send every call, then wait for their replies; an error or a timeout gives None."""
        from jeepney import DBusAddress, HeaderFields, MessageType, Properties, new_method_call

        serials = []
        for ref, iface, method, sig, args in calls:
            address = DBusAddress(ref[1], bus_name=ref[0], interface=iface)
            if method == "GetAll":
                message = Properties(address).get_all()
            else:
                message = (new_method_call(address, method, sig, args) if sig
                           else new_method_call(address, method))
            serial = next(self.conn.outgoing_serial)
            self.conn.send(message, serial=serial)
            serials.append(serial)
        wanted = {serial: i for i, serial in enumerate(serials)}
        out: list[Any] = [None] * len(calls)
        while wanted:
            left = self.deadline - time.monotonic()
            try:
                reply = self.conn.receive(timeout=max(left, 0.01))
            except TimeoutError:
                break
            i = wanted.pop(reply.header.fields.get(HeaderFields.reply_serial, -1), None)
            if i is not None and reply.header.message_type != MessageType.error:
                out[i] = reply.body
        return out

    def walk(self, apps: list[tuple[str, str]]) -> None:
        """Visit the applications' showing widgets level by level."""
        level: list[tuple[tuple[int, ...], tuple[str, str], int]] = [
            ((i,), ref, 0) for i, ref in enumerate(apps)]
        while level and len(self.nodes) < self.max_nodes and time.monotonic() < self.deadline:
            first = self.batch([c for _, ref, _ in level for c in (
                (ref, ACCESSIBLE, "GetRoleName", None, ()), (ref, ACCESSIBLE, "GetState", None, ()),
                (ref, ACCESSIBLE, "GetAll", None, ()), (ref, ACCESSIBLE, "GetInterfaces", None, ()),
            )])
            kept = []
            for n, (key, ref, depth) in enumerate(level):
                role, states, props, ifaces = first[4 * n: 4 * n + 4]
                if role is None or states is None or props is None or ifaces is None:
                    continue  # the widget went away or the app is busy: leave it out
                if depth > 1 and not (states[0] and states[0][0] >> STATE_SHOWING & 1):
                    continue  # hidden (a closed menu's items, a background tab)
                node = A11yNode(str(role[0]), str(props[0].get("Name", ("s", ""))[1]), None,
                                children=int(props[0].get("ChildCount", ("i", 0))[1]))
                kept.append((key, ref, depth, node, set(ifaces[0])))
            second = self.batch([c for _, ref, _, node, ifaces in kept for c in (
                (ref, COMPONENT if COMPONENT in ifaces else "", "GetExtents", "u", (0,)),
                (ref, TEXT if TEXT in ifaces and node.role not in NO_TEXT else "", "GetText",
                 "ii", (0, TEXT_CHARS)),
                (ref, ACCESSIBLE if node.children <= MAX_CHILDREN else "", "GetChildren", None,
                 ()),
            ) if c[1]])
            replies = iter(second)
            level = []
            for key, _, depth, node, ifaces in kept:
                if COMPONENT in ifaces and (box := next(replies)) is not None:
                    x, y, w, h = box[0]
                    node.box = (int(x), int(y), int(w), int(h)) if w > 0 and h > 0 else None
                if TEXT in ifaces and node.role not in NO_TEXT and (text := next(replies)):
                    node.text = str(text[0])
                children = next(replies) if node.children <= MAX_CHILDREN else None
                if depth > 0:  # the application node itself is not on screen
                    if len(self.nodes) >= self.max_nodes:
                        break
                    self.nodes.append((key, node))
                for i, child in enumerate(children[0] if children else []):
                    level.append(((*key, i), (str(child[0]), str(child[1])), depth + 1))

    def ordered(self) -> list[A11yNode]:
        """The visited widgets in document (depth-first) order."""
        return [node for _, node in sorted(self.nodes, key=lambda kv: kv[0])]


def accessibility_tree(address: str, *, max_nodes: int = 200,
                       timeout_s: float = 2.0) -> list[A11yNode]:
    """The showing widgets of every application on the accessibility bus ``address``.

    An unreachable bus gives ``[]`` (the observation then lists windows only).
    """
    try:
        from jeepney.io.blocking import open_dbus_connection
    except ImportError as e:
        raise missing_extra("jeepney", "gui") from e
    deadline = time.monotonic() + timeout_s
    try:
        conn = open_dbus_connection(address)
    except (OSError, ValueError) as e:
        logger.debug("accessibility bus %s unreachable: %s", address, e)
        return []
    walker = _Walker(conn, max_nodes, deadline)
    try:
        [apps] = walker.batch([(REGISTRY, ACCESSIBLE, "GetChildren", None, ())])
        if apps is None:
            logger.debug("accessibility registry on %s did not answer", address)
            return []
        walker.walk([(str(a[0]), str(a[1])) for a in apps[0]])
    except OSError as e:
        logger.debug("accessibility bus %s failed: %s", address, e)
    finally:
        conn.close()
    return walker.ordered()


def render_accessibility(nodes: list[A11yNode], scale: tuple[float, float]) -> str:
    """One line per named or text widget (centre in screenshot pixels), or '' when none."""
    sx, sy = scale
    lines = []
    for n in nodes:
        if not n.name and not n.text and n.role in SKIP_UNNAMED:
            continue
        where = ""
        if n.box is not None:
            x, y, w, h = n.box
            where = f" at ({round((x + w / 2) * sx)}, {round((y + h / 2) * sy)})"
        value = f" text={n.text!r}" if n.text else ""
        more = f" ({n.children} children)" if n.children > MAX_CHILDREN else ""
        lines.append(f"- {n.role} {n.name!r}{value}{where}{more}")
    return "\n".join(["Accessibility tree (AT-SPI):", *lines]) if lines else ""


__all__ = ["A11yNode", "accessibility_tree", "render_accessibility"]
