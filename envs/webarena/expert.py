"""Scripted experts: a task's expert steps, resolved against each observation into web actions.

A task's ``expert`` list names elements by their accessible name (``click "Add to Cart"``), since
element ids only exist once the page is loaded. Each step becomes an :class:`ExpertStep`, a
deferred action: the scripted policy calls it with the observation the model would see and gets
an ordinary WebArena action (``click [1234]``) back, so the recorded trajectory is made of the same
actions a model writes, and the expert drives the sites through the browser like any policy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_LINE = re.compile(r"^\t*\[(\d+)\] (\S+) (['\"])(.*?)\3(?=\s|$)")
FIELD_ROLES = frozenset({"textbox", "searchbox", "spinbutton", "combobox", "textarea"})
"""Roles a ``type`` step may target."""


class ExpertError(LookupError):
    """The expert could not find the element a step names in the observation."""


def elements(tree: str) -> list[tuple[int, str, str]]:
    """``(id, role, name)`` of every line of a rendered accessibility tree."""
    out = []
    for line in tree.splitlines():
        m = _LINE.match(line)
        if m:
            name = m.group(4).replace("\\'", "'").replace('\\"', '"')
            out.append((int(m.group(1)), m.group(2), name))
    return out


def find_element(tree: str, name: str, roles: frozenset[str] | None = None) -> int:
    """Id of the first element named ``name`` (exactly, else case-insensitively) with a role in
    ``roles``; raises :class:`ExpertError` when there is none."""
    found = [(i, r, n) for i, r, n in elements(tree) if roles is None or r in roles]
    for i, _r, n in found:
        if n == name:
            return i
    for i, _r, n in found:
        if n.strip().lower() == name.strip().lower():
            return i
    raise ExpertError(f"expert: no element {name!r} with role in {sorted(roles or [])} in the "
                      "observation")


@dataclass(frozen=True)
class ExpertStep:
    """One expert step; call it with the current observation's text to get the action."""

    op: str
    name: str = ""
    role: str | None = None
    text: str = ""
    enter: bool = False
    url: str = ""
    option: str = ""
    answer: str = ""

    @classmethod
    def from_json(cls, step: dict[str, Any], placeholders: dict[str, str]) -> ExpertStep:
        """Build a step from a task file entry, with ``__SITE__`` placeholders replaced."""
        url = str(step.get("url", ""))
        for key, value in placeholders.items():
            url = url.replace(key, value)
        return cls(op=step["op"], name=str(step.get("name", "")), role=step.get("role"),
                   text=str(step.get("text", "")), enter=bool(step.get("enter", False)), url=url,
                   option=str(step.get("option", "")), answer=str(step.get("answer", "")))

    def __call__(self, observation: str) -> str:
        """The WebArena action for this step on the page ``observation`` shows."""
        if self.op == "goto":
            return f"goto [{self.url}]"
        if self.op == "stop":
            return f"stop [{self.answer}]"
        if self.op == "click":
            roles = frozenset({self.role}) if self.role else None
            return f"click [{find_element(observation, self.name, roles)}]"
        if self.op == "type":
            element = find_element(observation, self.name, FIELD_ROLES)
            return f"type [{element}] [{self.text}] [{int(self.enter)}]"
        if self.op == "select":
            element = find_element(observation, self.name, frozenset({"combobox", "listbox"}))
            return f"select [{element}] [{self.option}]"
        raise ExpertError(f"unknown expert step {self.op!r}")

    def describe(self) -> str:
        """A readable form of the step, for logs and docs."""
        target = self.url or self.name or self.answer
        return f"{self.op} {target!r}" + (f" <- {self.text!r}" if self.text else "")
