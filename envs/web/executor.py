"""Runs a :class:`~.actions.WebAction` in a :class:`~agentgym.sandboxes.browser.BrowserSession`.

An element id of the observation is mapped to Chromium's ``backendDOMNodeId`` (by the env's
:class:`~.observation.ElementIds`), the element is found by it through CDP, then clicked with
real mouse events at the centre of its on-screen box, as WebArena does. An action that cannot be
carried out raises :class:`ActionFailed` with a message for the model; a dead browser raises
:class:`~agentgym.sandboxes.browser.BrowserCrashed` (the episode is aborted).
Nothing here sleeps for a fixed time: after an action the page gets an animation frame and a
task turn (or 50 ms at most) to settle, and a navigation it started is awaited to its ``load``
event (:mod:`.navigation`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from agentgym.sandboxes.browser import (
    SPECIAL_PORTS,
    BrowserCrashed,
    BrowserSession,
    URLError,
    parse_url,
)

from .actions import WebAction
from .navigation import NavigationWatch

logger = logging.getLogger(__name__)

SETTLE_JS = ("() => new Promise(r => { const t = setTimeout(r, 50);"
             " requestAnimationFrame(() => { clearTimeout(t); setTimeout(r, 0); }) })")
SELECT_JS = """function(label) {
  if (this.tagName !== 'SELECT') return 'element is not a select box';
  const opts = Array.from(this.options);
  const hit = opts.find(o => o.label.trim() === label.trim() || o.value === label);
  if (!hit) return 'no option ' + JSON.stringify(label) + '; options: ' +
      opts.map(o => o.label).join(', ');
  this.value = hit.value;
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
}"""


EDITABLE_JS = """function() {
  let e = this.nodeType === 1 ? this : this.parentElement;
  if (!e) return 'is not an element';
  if (e.tagName === 'LABEL' && e.control) e = e.control;
  const tag = e.tagName.toLowerCase();
  const role = (e.getAttribute('role') || '').toLowerCase();
  const textual = ['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date',
                   'datetime-local', 'month', 'week', 'time'];
  const kind = (e.getAttribute('type') || '').toLowerCase();
  const box = tag === 'textarea' || (tag === 'input' && textual.includes(kind)) ||
      e.isContentEditable || ['textbox', 'searchbox', 'combobox', 'spinbutton'].includes(role);
  if (!box) {
    const what = tag === 'input' ? 'an input of type ' + kind : 'a <' + tag + '>' +
        (role ? ' (' + role + ')' : '');
    const name = (e.getAttribute('aria-label') || e.textContent || e.value || '').trim();
    return 'is ' + what + (name ? ' "' + name.slice(0, 40) + '"' : '') + ', not a text box';
  }
  if (e.disabled) return 'is a disabled text box';
  if (e.readOnly) return 'is a read-only text box';
  return '';
}"""
"""Why element ``this`` cannot take typed text ('' when it can): ``type``/``fill`` into a
button or a link would otherwise click it and type into nothing."""


class ActionFailed(Exception):
    """The action is well formed but cannot be done here (unknown id, hidden element...)."""


def check_url(url: str, allows: Callable[[str], bool]) -> str:
    """The URL to open for a ``goto``: ``url`` read as the browser reads it (WHATWG) and written
    back canonically, so the origin checked is the origin loaded. Refused (:class:`ActionFailed`):
    URLs that cannot be read, other schemes than http(s) (``javascript:``, ``file:``...), user
    info (``http://a@b/``) and hosts or ports outside the policy."""
    shown = repr(url[:100])
    try:
        parsed = parse_url(url)
    except URLError as e:
        scheme = url.strip().split(":", 1)[0].lower() if ":" in url else ""
        if scheme and scheme not in SPECIAL_PORTS and scheme.isalpha():
            raise ActionFailed(f"refused URL {shown}: only http(s) URLs may be opened") from e
        raise ActionFailed(f"refused URL {shown}: {e}") from e
    if parsed.scheme not in ("http", "https"):
        raise ActionFailed(f"refused URL {shown}: only http(s) URLs may be opened")
    if parsed.userinfo:
        raise ActionFailed(f"refused URL {shown}: URLs with a user name or password are not "
                           "opened")
    canonical = parsed.serialize()
    if not allows(canonical):
        raise ActionFailed(f"refused URL {shown}: its host is not an allowed site")
    return canonical


async def element_center(session: BrowserSession, backend: int,
                         shown: int | None = None) -> tuple[float, float]:
    """Scroll backend node ``backend`` into view and return the centre of its first box on
    screen (``shown`` is its id in the observation, for error messages)."""
    label = backend if shown is None else shown
    try:
        await session.cdp("DOM.scrollIntoViewIfNeeded", {"backendNodeId": backend})
        quads = (await session.cdp("DOM.getContentQuads", {"backendNodeId": backend}))["quads"]
    except Exception as e:
        if isinstance(e, BrowserCrashed):
            raise
        raise ActionFailed(f"element [{label}] cannot be reached: {_short(e)}") from e
    if not quads:
        raise ActionFailed(f"element [{label}] is not visible")
    q = quads[0]
    return (q[0] + q[2] + q[4] + q[6]) / 4, (q[1] + q[3] + q[5] + q[7]) / 4


def _short(e: BaseException) -> str:
    return str(e).splitlines()[0][:200] if str(e) else type(e).__name__


async def _call_on(session: BrowserSession, element: int, fn: str, *args: Any) -> Any:
    obj = await session.cdp("DOM.resolveNode", {"backendNodeId": element})
    res = await session.cdp("Runtime.callFunctionOn", {
        "objectId": obj["object"]["objectId"], "functionDeclaration": fn,
        "arguments": [{"value": a} for a in args], "returnByValue": True})
    return res.get("result", {}).get("value")


NAVIGATING_ACTIONS = frozenset({"click", "mouse_click"})
"""Actions after which a navigation that starts a little late is raced (with Enter: also
``press`` and ``type ... [1]``)."""


def may_navigate(action: WebAction) -> bool:
    """Whether ``action`` commonly starts a page load (a click, or Enter in a form)."""
    if action.name in NAVIGATING_ACTIONS:
        return True
    if action.name == "type":
        return action.press_enter
    return action.name == "press" and "enter" in action.text.lower()


async def settle(session: BrowserSession, watch: NavigationWatch | None = None,
                 since: int = 0, grace_s: float = 0.0) -> None:
    """Give the page a frame and a task turn to react; await a navigation the action started.

    With a ``watch``, a main-frame navigation started after its count ``since`` (or within
    ``grace_s`` after the frame) is awaited to its ``load`` event, so the next observation is
    of the new page even when the server answers after that frame.
    """
    page = session.page
    try:
        await session.guard(page.evaluate(SETTLE_JS))
    except Exception as e:  # a navigation destroyed the context: wait for the new page
        if isinstance(e, BrowserCrashed):
            raise
        if watch is None:
            try:
                await session.guard(page.wait_for_load_state("load"))
            except Exception as e2:
                if isinstance(e2, BrowserCrashed):
                    raise
                logger.debug("waiting for a load after an action failed: %s", e2)
    if watch is not None and await watch.wait_started(since, grace_s):
        await watch.wait_loaded(session.timeout_s)


async def execute(session: BrowserSession, action: WebAction,
                  backend_of: Callable[[int], int | None], viewport: tuple[int, int],
                  watch: NavigationWatch | None = None, grace_s: float = 0.0) -> None:
    """Run ``action``; ``backend_of`` maps an id of the latest observation to its backend node.

    ``watch`` and ``grace_s`` (applied to clicks and Enter) are passed on to :func:`settle`.
    """
    page = session.page
    since = watch.starts if watch is not None else 0
    backend = 0
    if action.element is not None:
        found = backend_of(action.element)
        if found is None:
            raise ActionFailed(f"no element [{action.element}] in the current page; use an id "
                               "from the latest observation")
        backend = found
    name = action.name
    try:
        if name in ("click", "hover"):
            x, y = await element_center(session, backend, action.element)
            op = page.mouse.click(x, y) if name == "click" else page.mouse.move(x, y)
            await session.guard(op)
        elif name == "type":
            problem = await _call_on(session, backend, EDITABLE_JS)
            if problem:
                raise ActionFailed(f"type [{action.element}]: [{action.element}] {problem}; "
                                   "type into a textbox, searchbox or combobox of the page")
            x, y = await element_center(session, backend, action.element)
            await session.guard(page.mouse.click(x, y))
            await session.guard(page.keyboard.press("Control+a"))
            await _type_text(session, action.text)
            if action.press_enter:
                await session.guard(page.keyboard.press("Enter"))
        elif name == "select":
            problem = await _call_on(session, backend, SELECT_JS, action.text)
            if problem:
                raise ActionFailed(f"select [{action.element}]: {problem}")
        elif name == "mouse_click":
            if not (0 <= action.x <= viewport[0] and 0 <= action.y <= viewport[1]):
                raise ActionFailed(f"({action.x:g}, {action.y:g}) is outside the "
                                   f"{viewport[0]}x{viewport[1]} viewport")
            await session.guard(page.mouse.click(action.x, action.y))
        elif name == "press":
            await session.guard(page.keyboard.press(action.text))
        elif name == "scroll":
            sign = -1 if action.text == "up" else 1
            await session.guard(page.evaluate(f"window.scrollBy(0, {sign} * innerHeight * 0.8)"))
        elif name == "goto":
            url = check_url(action.text, session.policy.allows)
            await session.guard(page.goto(url, wait_until="load"))
        elif name == "go_back":
            await session.guard(page.go_back(wait_until="load"))
        elif name == "go_forward":
            await session.guard(page.go_forward(wait_until="load"))
        elif name == "new_tab":
            await session.new_tab()
        elif name == "tab_focus":
            await session.focus_tab(action.index)
        elif name == "close_tab":
            await session.close_tab()
        elif name in ("noop", "stop"):
            return
        else:
            raise ActionFailed(f"unsupported action {name!r}")
    except (ActionFailed, IndexError) as e:
        raise ActionFailed(str(e)) from e
    except TimeoutError as e:
        raise ActionFailed(f"{name} timed out") from e
    except Exception as e:
        if isinstance(e, BrowserCrashed):
            raise
        raise ActionFailed(f"{name} failed: {_short(e)}") from e
    await settle(session, watch, since, grace_s if may_navigate(action) else 0.0)


async def _type_text(session: BrowserSession, text: str) -> None:
    """Replace the selection by ``text``: one ``insertText`` call for all but the last
    character, then the last one as a real key press, so pages that react to ``keydown`` or
    ``keyup`` (a search box filtering as one types) still see a key event with the full value."""
    keyboard = session.page.keyboard
    if not text:
        await session.guard(keyboard.press("Delete"))
        return
    if len(text) > 1:
        await session.guard(keyboard.insert_text(text[:-1]))
    await session.guard(keyboard.type(text[-1]))


__all__ = ["ActionFailed", "check_url", "element_center", "execute", "may_navigate", "settle"]
