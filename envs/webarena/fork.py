"""Forking a WebArena twin episode: the sites' session databases and the browser's state.

A twin episode's state lives in three places, and a fork (:mod:`agentgym.fork`, ``snapshot``
mode) copies each:

- **the sites' data**: every site reads and writes its episode session's SQLite copy
  (:mod:`.sites.state`); each fork gets a new random session id whose files are copied from the
  parent's with SQLite's backup API (a consistent copy even while the server holds the files);
- **the browser**: the context's cookies (the session cookie swapped for the fork's, the login
  cookies kept), every tab's URL (reloaded), the values of its form fields and its scroll
  position, and which tab is active;
- **the env**: task, goal, step count, answer, last error, scoring state and the network log
  so far (the reloads that rebuild the pages are not logged).

Not copied: in-page JavaScript state (variables, timers, the DOM a script built that a reload
does not rebuild), ``localStorage`` and ``sessionStorage``, and a page reached by a form POST
(reloading it is a GET). The restored fork must show exactly the parent's observation; when it
does not, it is refused (:class:`agentgym.ForkError`) and :mod:`agentgym.fork` replays instead.
Real servers (``sites=...``) are never forked from a snapshot: their data cannot be copied.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import secrets
import sqlite3
from pathlib import Path
from typing import Any

from agentgym.errors import ForkError

from .sites.state import SESSION_COOKIE, valid_session_id

MAX_PAGE_STATE = 1 << 20
"""Bytes of form values a tab may hand a snapshot (a page that hands more is not forked)."""

_READ = """() => {
  const fields = Array.from(document.querySelectorAll('input, textarea, select')).map(e =>
    (e.type === 'checkbox' || e.type === 'radio') ? {checked: !!e.checked}
    : e.tagName === 'SELECT' ? {index: e.selectedIndex}
    : e.type === 'file' ? {} : {value: String(e.value)});
  return {fields, scroll: [window.scrollX, window.scrollY]};
}"""
_WRITE = """(state) => {
  const els = Array.from(document.querySelectorAll('input, textarea, select'));
  if (els.length !== state.fields.length) return false;
  els.forEach((e, i) => {
    const f = state.fields[i];
    if ('checked' in f) e.checked = f.checked;
    else if ('index' in f) e.selectedIndex = f.index;
    else if ('value' in f) e.value = f.value;
  });
  window.scrollTo(state.scroll[0], state.scroll[1]);
  return true;
}"""


def copy_session(root: Path, sid: str) -> str:
    """A new session whose site databases are copies of session ``sid``'s; returns its id."""
    if not valid_session_id(sid):
        raise ForkError(f"no site session to copy ({sid!r})")
    source = root / sid
    new = secrets.token_urlsafe(12)
    tmp = root / f".fork-{new}"
    tmp.mkdir(mode=0o700)
    for db in sorted(source.glob("*.sqlite")) if source.is_dir() else ():
        src = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
        dst = sqlite3.connect(tmp / db.name)
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
    os.replace(tmp, root / new)
    return new


def _plain(value: Any) -> Any:
    """``value`` if it is plain JSON within :data:`MAX_PAGE_STATE`, else ForkError."""
    text = json.dumps(value)
    if len(text) > MAX_PAGE_STATE:
        raise ForkError("a tab's form state is larger than a fork copies")
    return json.loads(text)


_ROOTS: dict[tuple[tuple[str, str], ...], Path] = {}
"""The sites' session folder per set of site URLs (asking the server costs a health check)."""


async def _sessions_root(site_urls: dict[str, str]) -> Path:
    key = tuple(sorted(site_urls.items()))
    if key not in _ROOTS:
        from .sites.server import ensure_sites

        server = await asyncio.to_thread(ensure_sites)
        if tuple(sorted(server.urls.items())) != key:
            raise ForkError("the env's sites are not the running site server's")
        _ROOTS[key] = Path(server.sessions_root)
    return _ROOTS[key]


async def snapshot(env: Any, n: int) -> list[dict[str, Any]]:
    """``n`` snapshots of ``env``'s episode, each with its own copy of the site data."""
    if env.external:
        raise ForkError("an episode on real servers cannot be forked from a snapshot: their "
                        "data is not copied")
    session = env.session
    if session is None or env.task is None or not env.session_id:
        raise ForkError("no running episode to fork")
    cookies = await session.guard(session.context.cookies())
    tabs = []
    for page in list(session.pages):
        if page.url.startswith("about:"):
            tabs.append({"url": page.url, "state": {"fields": [], "scroll": [0, 0]}})
            continue
        state = await session.guard(page.evaluate(_READ))
        tabs.append({"url": page.url, "state": _plain(state)})
    root = await _sessions_root(env.site_urls)
    fields = {"task_id": env.task.task_id, "goal": env.goal, "steps": env.steps,
              "answer": env.answer, "done": env.done, "last_error": env.last_error,
              "result_info": copy.deepcopy(env.result_info)}
    netlog = await env.netlog.snapshot()  # the requests so far: network-event checks read them
    out = []
    for _ in range(n):
        sid = await asyncio.to_thread(copy_session, root, env.session_id)
        mine = [dict(c, value=sid) if c.get("name") == SESSION_COOKIE else dict(c)
                for c in cookies]
        out.append({"sid": sid, "cookies": mine, "tabs": copy.deepcopy(tabs),
                    "active": session.active, "fields": dict(fields),
                    "netlog": copy.deepcopy(netlog),
                    "observation": env._last_text})
    return out


async def restore(env: Any, snap: dict[str, Any]) -> None:
    """Bring the fresh ``env`` (made like the parent) to the snapshot's state on this loop."""
    session = await env.attach_session()
    env.session_id = snap["sid"]  # the copy is this env's now: its close drops it
    env.element_ids.clear()
    fields = snap["fields"]
    env.task = env.task_set.get(fields["task_id"])
    env.goal, env.answer = fields["goal"], fields["answer"]
    env.done, env.last_error = fields["done"], fields["last_error"]
    env.result_info = copy.deepcopy(fields["result_info"])
    env.steps = 0  # the start page shows the task line; the snapshot's count is set below
    await session.guard(session.context.add_cookies(snap["cookies"]))
    for i, tab in enumerate(snap["tabs"]):
        page = session.page if i == 0 else await session.new_tab()
        if not tab["url"].startswith("about:"):
            await session.guard(page.goto(tab["url"], wait_until="load"))
            if not await session.guard(page.evaluate(_WRITE, tab["state"])):
                raise ForkError("the reloaded page has other form fields than the parent's")
    if snap["tabs"]:
        await session.focus_tab(int(snap["active"]))
    env.netlog.clear()  # the parent's requests, not the reloads that rebuilt its pages
    for entry in snap.get("netlog", ()):
        env.netlog.add(entry)
    env.netlog.attach(session.context)
    env.steps = fields["steps"]
    obs = await env.observe()
    if obs["text"] != snap["observation"]:
        raise ForkError("the restored page does not show the parent's observation (state a "
                        "reload does not rebuild)")
    env._last_text = obs["text"]


__all__ = ["MAX_PAGE_STATE", "copy_session", "restore", "snapshot"]
