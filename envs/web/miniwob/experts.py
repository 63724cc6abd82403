"""Scripted experts for MiniWoB++ tasks: JavaScript that reads the page's own state.

Each expert is the body of a JavaScript function run in the task page right after the episode
starts. It reads the utterance (``core.getUtterance()``) and the DOM the page generated, and
records the actions that solve the instance with ``click(el)``, ``type(el, text)`` and
``select(el, label)``. The env turns the recorded elements into the ids of its observation, so
the expert's trajectory is made of ordinary actions (``click [41]``) that any policy could have
written; nothing reaches into the page's reward logic.
"""

from __future__ import annotations

PRELUDE = r"""
const U = core.getUtterance();
const $$ = (s) => Array.from(document.querySelectorAll(s));
const quoted = () => (U.match(/"([^"]*)"/) || [])[1];
const text = (e) => e.textContent.trim();
const byText = (s, t) => $$(s).find(e => text(e) === t);
const steps = [], els = [];
const add = (op, e, t) => { if (!e) throw new Error('expert: element not found for ' + op);
  els.push(e); steps.push([op, els.length - 1, t === undefined ? '' : String(t)]); };
const click = (e) => add('click', e);
const type = (e, t) => add('type', e, t);
const select = (e, t) => add('select', e, t);
const listAfter = (prefix) => U.slice(prefix.length).replace(/ and click Submit\.$/, '')
  .split(', ').filter(x => x && x !== 'nothing');
"""

_CLICK_QUOTED_BUTTON = "click(byText('#area button', quoted()));"
_ENTER_QUOTED = "type(document.getElementById('tt'), quoted()); click($$('#subbtn')[0]);"
_CHECKBOXES = """
const names = listAfter('Select ');
$$('#area label').forEach(l => { if (names.includes(text(l))) click(l.querySelector('input')); });
click($$('#subbtn')[0]);
"""

EXPERTS: dict[str, str] = {
    "click-button": _CLICK_QUOTED_BUTTON,
    "unicode-test": _CLICK_QUOTED_BUTTON,
    "click-link": "click(byText('#area span.alink', quoted()));",
    "click-dialog": "click($$('.ui-dialog-titlebar button')[0]);",
    "click-dialog-2": """
const want = quoted();
if (want === 'x') click($$('.ui-dialog-titlebar button')[0]);
else click(byText('.ui-dialog-buttonpane button', want));
""",
    "click-checkboxes": _CHECKBOXES,
    "click-checkboxes-transfer": _CHECKBOXES,
    "click-checkboxes-large": _CHECKBOXES,
    "click-option": """
const want = listAfter('Select ')[0];
click($$('#boxes label').find(l => text(l) === want).querySelector('input'));
click($$('#subbtn')[0]);
""",
    "click-tab": "click(byText('#area ul a', U.match(/Tab #\\d/)[0]));",
    "click-test": "click($$('#subbtn')[0]);",
    "click-test-2": "click(byText('#area button', U.match(/button (\\w+)/)[1]));",
    "click-button-sequence": "click(byText('#area button', 'ONE'));"
                             " click(byText('#area button', 'TWO'));",
    "click-widget": """
const kind = quoted();
const w = $$('#area .widget').find(d => d.querySelector('[data-type]')
  .getAttribute('data-type') === kind);
click(w.querySelector('[data-type]'));
""",
    "click-collapsible": "click($$('#area h3')[0]); click($$('#subbtn')[0]);",
    "enter-text": _ENTER_QUOTED,
    "enter-text-dynamic": _ENTER_QUOTED,
    "enter-text-2": """
const q = quoted();
type(document.getElementById('tt'), U.includes('lower case') ? q.toLowerCase() : q.toUpperCase());
click($$('#subbtn')[0]);
""",
    "enter-password": """
const p = quoted();
type(document.getElementById('password'), p); type(document.getElementById('verify'), p);
click($$('#subbtn')[0]);
""",
    "login-user": """
const q = U.match(/"([^"]*)"[^"]*"([^"]*)"/);
type(document.getElementById('username'), q[1]); type(document.getElementById('password'), q[2]);
click($$('#subbtn')[0]);
""",
    "focus-text": "click(document.getElementById('tt'));",
    "focus-text-2": """
const n = ['1st', '2nd', '3rd'].findIndex(p => U.includes(p));
click(document.getElementById('tt' + (n + 1)));
""",
    "choose-list": """
const want = U.replace(/^Select /, '').replace(/ from the list and click Submit\\.$/, '');
select(document.getElementById('options'), want);
click(byText('#area button', 'Submit'));
""",
    "simple-arithmetic": """
const [a, op, b] = text(document.getElementById('math-problem')).split(' ');
const x = +a, y = +b;
const v = op === '+' ? x + y : op === '-' ? x - y : x * y;
type(document.getElementById('math-answer'), v); click($$('#subbtn')[0]);
""",
}
"""Expert JavaScript by task name."""


def expert_script(task: str) -> str | None:
    """A function expression returning ``{steps, elements}`` for ``task``, or None."""
    body = EXPERTS.get(task)
    if body is None:
        return None
    return "(() => {" + PRELUDE + body + "\nreturn {steps: steps, elements: els};\n})()"


__all__ = ["EXPERTS", "PRELUDE", "expert_script"]
