"""The bundled desktop tasks, written in OSWorld's task shape and generated deterministically.

Each record has ``task_id``, ``split``, ``prompt`` (the instruction), ``app``, ``config`` (setup
steps, see :mod:`agentgym.sandboxes._desktop_setup`), ``evaluator`` (``func``, ``result`` getter,
``expected``; see :mod:`.evaluators`) and ``expert`` (what the scripted expert does; see
:mod:`.expert`). Apps: the project's Tk form, todo list and settings dialog, mousepad, xterm and
gnumeric (Debian packages), plus infeasible tasks whose only right answer is ``FAIL``.
Within each group of tasks, every fourth (index 1, 5, 9...) goes to the ``test`` split.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from agentgym.sandboxes._desktop_jail import app_python, shared_path
from agentgym.tasks import TaskSet

APPS_FILE = Path(__file__).resolve().parent / "apps" / "tkapps.py"
"""The project's Tk apps; the desktop shares this one file read-only with its jail, where it is
:data:`APPS_IN_JAIL`."""
APPS_IN_JAIL = shared_path(APPS_FILE)
APP_PYTHON = app_python()
"""The interpreter of the Tk apps: one the desktop's jail shows (not a virtual environment's)."""
STATE_FILE = "state.json"
"""Where a Tk app dumps its state, relative to the desktop's private folder (out of the
model's reach: apps the model opens do not see it, so it cannot forge the state)."""
WINDOW = {"form": "Registration Form", "todo": "Todo List", "settings": "Settings"}

PEOPLE = [
    ("Alice Martin", "alice@example.org", "34", "Lyon", True),
    ("Bruno Diaz", "bruno.diaz@example.com", "27", "Madrid", False),
    ("Chen Wei", "chen.wei@example.net", "45", "Shanghai", True),
    ("Dana Kowalski", "dana.k@example.org", "31", "Krakow", False),
    ("Emeka Obi", "emeka@example.com", "29", "Lagos", True),
    ("Fatima Zahra", "fz@example.org", "52", "Rabat", False),
    ("Gustav Berg", "gberg@example.se", "38", "Uppsala", True),
    ("Hana Sato", "hana.sato@example.jp", "23", "Osaka", False),
    ("Ivan Petrov", "ivan.p@example.ru", "41", "Kazan", True),
    ("Julia Rossi", "julia.rossi@example.it", "36", "Turin", False),
    ("Kofi Mensah", "kofi@example.gh", "48", "Accra", True),
    ("Lena Vogel", "lena.vogel@example.de", "26", "Bremen", False),
]
TODO_SEED = ["Buy milk", "Call Bob", "Water plants", "Pay rent"]
NEW_ITEMS = ["Book dentist", "Fix bike", "Read chapter 3", "Send invoice", "Plan trip", "Wash car"]
SETTINGS = [
    {"dark_mode": True, "notifications": True, "language": "English", "font_size": "12"},
    {"dark_mode": False, "notifications": False, "language": "French", "font_size": "12"},
    {"dark_mode": True, "notifications": False, "language": "German", "font_size": "16"},
    {"dark_mode": False, "notifications": True, "language": "French", "font_size": "10"},
    {"dark_mode": True, "notifications": True, "language": "German", "font_size": "14"},
    {"dark_mode": False, "notifications": True, "language": "English", "font_size": "20"},
    {"dark_mode": True, "notifications": False, "language": "French", "font_size": "18"},
    {"dark_mode": False, "notifications": False, "language": "German", "font_size": "9"},
    {"dark_mode": True, "notifications": True, "language": "French", "font_size": "24"},
    {"dark_mode": False, "notifications": False, "language": "English", "font_size": "15"},
]
SETTINGS_START = {"dark_mode": False, "notifications": True, "language": "English",
                  "font_size": 12}
NOTES = ["Meeting at 10", "Call the bank", "Remember the keys", "Ship the parcel"]
TERMINAL = [("hello.txt", "hi there"), ("todo.txt", "buy bread"), ("name.txt", "agentgym"),
            ("answer.txt", "42")]
CELLS = [("B3", "42", 2, 1), ("A2", "7", 1, 0), ("B2", "100", 1, 1)]


def _tk_config(app: str, config: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    command = [APP_PYTHON, "-S", APPS_IN_JAIL, app, STATE_FILE, json.dumps(config or {})]
    return [{"type": "launch", "parameters": {"command": command, "private": True}},
            {"type": "wait_window", "parameters": {"name": f"^{WINDOW[app]}$", "timeout": 30}},
            {"type": "activate_window", "parameters": {"name": f"^{WINDOW[app]}$"}},
            {"type": "wait_file", "parameters": {"path": STATE_FILE, "timeout": 10,
                                                 "private": True}}]


def _state_eval(key: str, expected: Any, func: str = "exact_match") -> dict[str, Any]:
    return {"func": func, "result": {"type": "app_state", "key": key},
            "expected": {"type": "rule", "value": expected}}


def form_tasks() -> list[dict[str, Any]]:
    """Fill and submit the registration form."""
    out = []
    for i, (name, email, age, city, news) in enumerate(PEOPLE):
        tick = "tick the Newsletter box" if news else "leave the Newsletter box unticked"
        values = {"name": name, "email": email, "age": age, "city": city, "newsletter": news}
        out.append({
            "task_id": f"form-{i:02d}", "app": "form",
            "prompt": f"Fill in the registration form: name {name}, email {email}, age {age}, "
                      f"city {city}; {tick}; then press Submit.",
            "config": _tk_config("form"), "evaluator": _state_eval("submitted", values),
            "expert": {"kind": "form", "values": values},
        })
    return out


def todo_tasks() -> list[dict[str, Any]]:
    """Add, complete and delete todo items."""
    out = []
    seed = [{"text": t, "done": False} for t in TODO_SEED]
    for i, item in enumerate(NEW_ITEMS[:4]):
        out.append({"task_id": f"todo-add-{i}",
                    "prompt": f"Add the item '{item}' to the todo list.",
                    "expected": [*seed, {"text": item, "done": False}],
                    "expert": {"kind": "todo", "add": [item]}})
    for i in range(2):
        pair = NEW_ITEMS[4 + i], NEW_ITEMS[i]
        out.append({"task_id": f"todo-add2-{i}",
                    "prompt": f"Add two items to the todo list: '{pair[0]}' then '{pair[1]}'.",
                    "expected": [*seed, *({"text": t, "done": False} for t in pair)],
                    "expert": {"kind": "todo", "add": list(pair)}})
    for i in range(3):
        expected = [dict(s, done=(j == i)) for j, s in enumerate(seed)]
        out.append({"task_id": f"todo-done-{i}",
                    "prompt": f"Mark the todo item '{TODO_SEED[i]}' as done.",
                    "expected": expected, "expert": {"kind": "todo", "done": i}})
    for i in range(3):
        expected = [s for j, s in enumerate(seed) if j != i + 1]
        out.append({"task_id": f"todo-delete-{i}",
                    "prompt": f"Delete the todo item '{TODO_SEED[i + 1]}'.",
                    "expected": expected, "expert": {"kind": "todo", "delete": i + 1}})
    for t in out:
        t.update(app="todo", config=_tk_config("todo", {"items": TODO_SEED}),
                 evaluator=_state_eval("values.items", t.pop("expected")))
    return out


def settings_tasks() -> list[dict[str, Any]]:
    """Change settings and apply them."""
    out = []
    for i, want in enumerate(SETTINGS):
        onoff: dict[object, str] = {True: "on", False: "off"}
        out.append({
            "task_id": f"settings-{i:02d}", "app": "settings",
            "prompt": f"In the Settings dialog turn dark mode {onoff[want['dark_mode']]} and "
                      f"notifications {onoff[want['notifications']]}, choose {want['language']}, "
                      f"set the font size to {want['font_size']}, then press Apply.",
            "config": _tk_config("settings", SETTINGS_START),
            "evaluator": _state_eval("applied", want),
            "expert": {"kind": "settings", "values": want},
        })
    return out


def mousepad_tasks() -> list[dict[str, Any]]:
    """Append a line to a text file in mousepad and save."""
    out = []
    for i, line in enumerate(NOTES):
        start = "Shopping list\n"
        out.append({
            "task_id": f"mousepad-{i}", "app": "mousepad",
            "prompt": f"notes.txt is open in the text editor. Add the line '{line}' at the end "
                      "of the file (after the existing text) and save it.",
            "config": [{"type": "file", "parameters": {"path": "notes.txt", "content": start}},
                       {"type": "launch", "parameters": {"command": ["mousepad", "notes.txt"]}},
                       {"type": "wait_window", "parameters": {"name": "notes.txt", "timeout": 30}},
                       {"type": "activate_window", "parameters": {"name": "notes.txt"}},
                       {"type": "sleep", "parameters": {"seconds": 0.5}}],
            "evaluator": {"func": "text_equal", "result": {"type": "file", "path": "notes.txt"},
                          "expected": {"type": "rule", "value": start + line}},
            "expert": {"kind": "keys", "code": [
                "pyautogui.hotkey('ctrl', 'end')", f"pyautogui.write({line!r})",
                "pyautogui.hotkey('ctrl', 's')", "time.sleep(0.5)"]},
        })
    return out


def terminal_tasks() -> list[dict[str, Any]]:
    """Create a file from the terminal."""
    out = []
    for i, (name, text) in enumerate(TERMINAL):
        out.append({
            "task_id": f"xterm-{i}", "app": "xterm",
            "prompt": f"Using the terminal, create the file {name} in the home folder holding "
                      f"exactly the line '{text}'.",
            "config": [{"type": "launch", "parameters": {"command": ["xterm", "-T", "Terminal"]}},
                       {"type": "wait_window", "parameters": {"name": "^Terminal$", "timeout": 30}},
                       {"type": "activate_window", "parameters": {"name": "^Terminal$"}},
                       {"type": "sleep", "parameters": {"seconds": 0.5}}],
            "evaluator": {"func": "text_equal", "result": {"type": "file", "path": name},
                          "expected": {"type": "rule", "value": text}},
            "expert": {"kind": "keys", "code": [
                f"pyautogui.write({f'echo {text!r} > ~/{name}'!r})", "pyautogui.press('enter')",
                "time.sleep(1.0)"]},
        })
    return out


def gnumeric_tasks() -> list[dict[str, Any]]:
    """Set a cell of a gnumeric workbook and save."""
    out = []
    for i, (cell, value, down, right) in enumerate(CELLS):
        rows = [["a", "b"], ["1", "2"], ["3", "4"]]
        rows[down][right] = value
        csv = "".join(",".join(r) + "\n" for r in rows)
        out.append({
            "task_id": f"gnumeric-{i}", "app": "gnumeric",
            "prompt": f"book.gnumeric is open in Gnumeric. Put the value {value} in cell {cell} "
                      "and save the workbook.",
            "config": [{"type": "file", "parameters": {"path": "in.csv",
                                                        "content": "a,b\n1,2\n3,4\n"}},
                       {"type": "execute", "parameters": {"command": [
                           "ssconvert", "in.csv", "book.gnumeric"]}},
                       {"type": "launch", "parameters": {"command": ["gnumeric", "book.gnumeric"]}},
                       {"type": "wait_window", "parameters": {"name": "book", "timeout": 40}},
                       {"type": "activate_window", "parameters": {"name": "book"}},
                       {"type": "sleep", "parameters": {"seconds": 1.0}}],
            "evaluator": {"func": "text_equal",
                          "result": {"type": "converted_csv", "path": "book.gnumeric"},
                          "expected": {"type": "rule", "value": csv}},
            "expert": {"kind": "keys", "code": [
                "pyautogui.hotkey('ctrl', 'home')", *["pyautogui.press('down')"] * down,
                *["pyautogui.press('right')"] * right, f"pyautogui.write({value!r})",
                "pyautogui.press('enter')", "pyautogui.hotkey('ctrl', 's')", "time.sleep(1.0)"]},
        })
    return out


def infeasible_tasks() -> list[dict[str, Any]]:
    """Tasks the apps cannot do: the right answer is FAIL (OSWorld's ``infeasible``)."""
    asks = [("form", "Change the registration form's background colour to purple."),
            ("settings", "In the Settings dialog, turn on the 'Auto update' option.")]
    return [{"task_id": f"infeasible-{i}", "app": app, "prompt": prompt,
             "config": _tk_config(app, SETTINGS_START if app == "settings" else None),
             "evaluator": {"func": "infeasible"}, "expert": {"kind": "fail"}}
            for i, (app, prompt) in enumerate(asks)]


GROUPS = (form_tasks, todo_tasks, settings_tasks, mousepad_tasks, terminal_tasks,
          gnumeric_tasks, infeasible_tasks)


def task_records() -> list[dict[str, Any]]:
    """Every bundled task record, with its split."""
    records = []
    for group in GROUPS:
        for i, rec in enumerate(group()):
            records.append({**rec, "split": "test" if i % 4 == 1 else "train"})
    return records


@cache
def load_task_set() -> TaskSet:
    """The bundled tasks as a checked :class:`TaskSet`."""
    tasks = TaskSet.from_records(task_records(), name="gui/desktop")
    tasks.check()
    return tasks


def load_tasks() -> TaskSet:
    """Entry point named in the env registration."""
    return load_task_set()


__all__ = ["APPS_FILE", "APPS_IN_JAIL", "APP_PYTHON", "GROUPS", "STATE_FILE", "WINDOW",
           "load_task_set", "load_tasks", "task_records"]
