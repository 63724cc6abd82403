"""Small Tk apps whose whole state can be dumped exactly: a form, a todo list, a settings dialog.

Run as ``python tkapps.py APP STATE_FILE CONFIG_JSON``. Every 50 ms the app writes its state to
``STATE_FILE`` (atomically, only when it changed; relative to ``$AGENTGYM_STATE_DIR``, the
desktop's private folder that apps the model opens cannot reach, when that is set): the values
the task evaluators check, and a ``widgets`` list (role, name, value, bounding box in screen
pixels) that serves as the accessibility tree for text-only agents and gives the scripted
expert its click targets.

This file runs as a separate process on the desktop; it imports only the standard library.
"""

from __future__ import annotations

import json
import os
import sys
import tkinter as tk
from typing import Any

FONT = ("DejaVu Sans", 12)


class App:
    """Base: a window at a fixed place, named widgets, and the state dump loop."""

    title = "App"

    def __init__(self, state_file: str, config: dict[str, Any]) -> None:
        self.state_file, self.config = state_file, config
        self.root = tk.Tk()
        self.root.title(self.title)
        self.root.geometry("460x420+40+40")
        self.root.option_add("*Font", FONT)
        self.widgets: dict[str, tuple[str, tk.Widget, Any]] = {}
        self.extra: dict[str, Any] = {}
        self._last = ""
        self.build()
        self.root.after(50, self.dump)

    def build(self) -> None:
        """Create the widgets."""

    def add(self, name: str, role: str, widget: tk.Widget, value: Any = None) -> tk.Widget:
        """Register ``widget`` under ``name`` for the dump (``value``: a variable or callable)."""
        self.widgets[name] = (role, widget, value)
        return widget

    def values(self) -> dict[str, Any]:
        """The app's logical state."""
        return {}

    def dump(self) -> None:
        """Write the state file when it changed; reschedule."""
        items = []
        for name, (role, w, value) in self.widgets.items():
            v = value() if callable(value) else (value.get() if value is not None else None)
            items.append({"name": name, "role": role, "value": v, "bbox": [
                w.winfo_rootx(), w.winfo_rooty(), w.winfo_width(), w.winfo_height()]})
        state = {"app": self.title, "values": self.values(), **self.extra, "widgets": items}
        text = json.dumps(state, sort_keys=True)
        if text != self._last:
            tmp = self.state_file + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, self.state_file)
            self._last = text
        self.root.after(50, self.dump)


class FormApp(App):
    """A registration form: name, email, age, city, newsletter, Submit."""

    title = "Registration Form"
    FIELDS = ("name", "email", "age", "city")

    def build(self) -> None:
        """Labels and entries in a grid, a checkbox and a button."""
        self.vars = {f: tk.StringVar(master=self.root) for f in self.FIELDS}
        for i, field in enumerate(self.FIELDS):
            tk.Label(self.root, text=field.capitalize() + ":").grid(row=i, column=0, padx=8,
                                                                  pady=8, sticky="e")
            entry = tk.Entry(self.root, textvariable=self.vars[field], width=24)
            entry.grid(row=i, column=1, padx=8, pady=8)
            self.add(field, "entry", entry, self.vars[field])
        self.news = tk.BooleanVar(master=self.root, value=False)
        box = tk.Checkbutton(self.root, text="Newsletter", variable=self.news)
        box.grid(row=4, column=1, sticky="w")
        self.add("newsletter", "checkbox", box, self.news)
        button = tk.Button(self.root, text="Submit", command=self.submit)
        button.grid(row=5, column=1, pady=12)
        self.add("submit", "button", button)
        self.extra["submitted"] = None

    def submit(self) -> None:
        """Record the submitted values."""
        self.extra["submitted"] = self.values()

    def values(self) -> dict[str, Any]:
        """Current field values."""
        return {**{f: v.get() for f, v in self.vars.items()}, "newsletter": self.news.get()}


class TodoApp(App):
    """A todo list: an entry with Add, a list, Done and Delete buttons."""

    title = "Todo List"

    def build(self) -> None:
        """Entry, buttons and the list, seeded from the config's ``items``."""
        self.items: list[dict[str, Any]] = [
            {"text": str(t), "done": False} for t in self.config.get("items", [])]
        self.new = tk.StringVar(master=self.root)
        entry = tk.Entry(self.root, textvariable=self.new, width=22)
        entry.grid(row=0, column=0, padx=8, pady=8)
        entry.bind("<Return>", lambda _e: self.add_item())
        self.add("new_item", "entry", entry, self.new)
        add = tk.Button(self.root, text="Add", command=self.add_item)
        add.grid(row=0, column=1, padx=4)
        self.add("add", "button", add)
        self.listbox = tk.Listbox(self.root, height=8, width=30, exportselection=False)
        self.listbox.grid(row=1, column=0, columnspan=3, padx=8, pady=8)
        self.add("list", "list", self.listbox, lambda: [self._label(i) for i in self.items])
        done = tk.Button(self.root, text="Done", command=self.mark_done)
        done.grid(row=2, column=0, sticky="w", padx=8)
        self.add("done", "button", done)
        delete = tk.Button(self.root, text="Delete", command=self.delete)
        delete.grid(row=2, column=1)
        self.add("delete", "button", delete)
        self.refresh()

    def _label(self, item: dict[str, Any]) -> str:
        return ("[x] " if item["done"] else "[ ] ") + item["text"]

    def refresh(self) -> None:
        """Redraw the list and expose each row's box for clicks."""
        self.listbox.delete(0, tk.END)
        for item in self.items:
            self.listbox.insert(tk.END, self._label(item))
        self.root.update_idletasks()
        rows = []
        for i in range(len(self.items)):
            box = self.listbox.bbox(i)
            if box:
                x, y, w, h = box
                rows.append([self.listbox.winfo_rootx() + x, self.listbox.winfo_rooty() + y,
                             max(w, 40), h])
        self.extra["rows"] = rows

    def _selected(self) -> int | None:
        sel = self.listbox.curselection()
        return int(sel[0]) if sel else None

    def add_item(self) -> None:
        """Append the entry's text (ignored when blank)."""
        text = self.new.get().strip()
        if text:
            self.items.append({"text": text, "done": False})
            self.new.set("")
            self.refresh()

    def mark_done(self) -> None:
        """Mark the selected item done."""
        i = self._selected()
        if i is not None:
            self.items[i]["done"] = True
            self.refresh()

    def delete(self) -> None:
        """Delete the selected item."""
        i = self._selected()
        if i is not None:
            del self.items[i]
            self.refresh()

    def values(self) -> dict[str, Any]:
        """The items."""
        return {"items": [dict(i) for i in self.items]}


class SettingsApp(App):
    """A settings dialog: two checkboxes, a language choice, a font size, Apply."""

    title = "Settings"
    LANGUAGES = ("English", "French", "German")

    def build(self) -> None:
        """Widgets seeded from the config."""
        c = self.config
        self.dark = tk.BooleanVar(master=self.root, value=bool(c.get("dark_mode", False)))
        self.notify = tk.BooleanVar(master=self.root, value=bool(c.get("notifications", True)))
        self.lang = tk.StringVar(master=self.root, value=str(c.get("language", "English")))
        self.size = tk.StringVar(master=self.root, value=str(c.get("font_size", 12)))
        for row, (name, text, var) in enumerate((("dark_mode", "Dark mode", self.dark),
                                                 ("notifications", "Notifications", self.notify))):
            box = tk.Checkbutton(self.root, text=text, variable=var)
            box.grid(row=row, column=0, columnspan=2, sticky="w", padx=8, pady=6)
            self.add(name, "checkbox", box, var)
        for i, lang in enumerate(self.LANGUAGES):
            radio = tk.Radiobutton(self.root, text=lang, value=lang, variable=self.lang)
            radio.grid(row=2 + i, column=0, sticky="w", padx=24)
            self.add(f"language_{lang.lower()}", "radio", radio, self._is_language(lang))
        tk.Label(self.root, text="Font size:").grid(row=5, column=0, sticky="e", padx=8, pady=8)
        spin = tk.Spinbox(self.root, from_=8, to=32, textvariable=self.size, width=6)
        spin.grid(row=5, column=1, sticky="w")
        self.add("font_size", "spinbox", spin, self.size)
        apply = tk.Button(self.root, text="Apply", command=self.apply)
        apply.grid(row=6, column=1, pady=12, sticky="w")
        self.add("apply", "button", apply)
        self.extra["applied"] = None

    def _is_language(self, lang: str) -> Any:
        return lambda: self.lang.get() == lang

    def apply(self) -> None:
        """Record the applied settings."""
        self.extra["applied"] = self.values()

    def values(self) -> dict[str, Any]:
        """Current settings."""
        return {"dark_mode": self.dark.get(), "notifications": self.notify.get(),
                "language": self.lang.get(), "font_size": self.size.get()}


APPS = {"form": FormApp, "todo": TodoApp, "settings": SettingsApp}


def main(argv: list[str]) -> None:
    """``tkapps.py APP STATE_FILE [CONFIG_JSON]``."""
    state_file = os.path.join(os.environ.get("AGENTGYM_STATE_DIR", "."), argv[2])
    app = APPS[argv[1]](state_file, json.loads(argv[3]) if len(argv) > 3 else {})
    app.root.mainloop()


if __name__ == "__main__":
    main(sys.argv)
