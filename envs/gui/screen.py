"""What is on the screen, as text: the window list (EWMH) and a Tk app's widget tree.

Text-only models act on these; VLMs get them next to the screenshot. Window ids are left out so
the same screen always renders to the same text.
"""

from __future__ import annotations

from typing import Any

from agentgym.errors import missing_extra


def window_list(display: str) -> list[dict[str, Any]]:
    """Visible top-level windows (``_NET_CLIENT_LIST``): name and screen box, in stacking order."""
    try:
        from Xlib import X
        from Xlib import display as xdisplay
        from Xlib import error as xerror
    except ImportError as e:
        raise missing_extra("python-xlib", "gui") from e
    out: list[dict[str, Any]] = []
    conn = xdisplay.Display(display)
    try:
        root = conn.screen().root
        prop = root.get_full_property(conn.intern_atom("_NET_CLIENT_LIST"), X.AnyPropertyType)
        utf8 = conn.intern_atom("UTF8_STRING")
        net_name = conn.intern_atom("_NET_WM_NAME")
        for wid in (prop.value if prop is not None else []):
            try:
                win = conn.create_resource_object("window", wid)
                name_prop = win.get_full_property(net_name, utf8)
                name = (name_prop.value.decode(errors="replace") if name_prop is not None
                        else str(win.get_wm_name() or ""))
                geo = win.get_geometry()
                pos = win.translate_coords(root, 0, 0)
                out.append({"name": name, "box": [-pos.x, -pos.y, geo.width, geo.height]})
            except xerror.XError:
                continue  # the window went away meanwhile
    finally:
        conn.close()
    return out


def pointer(display: str) -> tuple[int, int]:
    """The pointer position on ``display``."""
    from Xlib import display as xdisplay

    conn = xdisplay.Display(display)
    try:
        p = conn.screen().root.query_pointer()
        return int(p.root_x), int(p.root_y)
    finally:
        conn.close()


def render_windows(windows: list[dict[str, Any]], scale: tuple[float, float]) -> str:
    """One line per window, boxes in screenshot pixels."""
    if not windows:
        return "Windows: none"
    sx, sy = scale
    lines = ["Windows:"]
    for w in windows:
        x, y, width, height = w["box"]
        lines.append(f"- {w['name']!r} at ({round(x * sx)}, {round(y * sy)}) size "
                     f"{round(width * sx)}x{round(height * sy)}")
    return "\n".join(lines)


def render_widgets(state: dict[str, Any] | None, scale: tuple[float, float]) -> str:
    """The Tk app's widgets (role, name, value, centre in screenshot pixels), or ''."""
    if not state or not state.get("widgets"):
        return ""
    sx, sy = scale
    lines = [f"Widgets of {state.get('app', 'the app')!r}:"]
    for w in state["widgets"]:
        x, y, width, height = w["bbox"]
        value = "" if w.get("value") is None else f" value={w['value']!r}"
        lines.append(f"- {w['role']} {w['name']!r}{value} at "
                     f"({round((x + width / 2) * sx)}, {round((y + height / 2) * sy)})")
    return "\n".join(lines)


__all__ = ["pointer", "render_widgets", "render_windows", "window_list"]
