"""Hostile model output and failure messages in the eval report and the trajectory viewer.

The viewer is HTML a person opens in a browser, and every eval now writes it (text envs too):
what the model wrote, what the env answered and why an episode ended must arrive as text, never
as markup (no script, no event handler, no javascript: link). ``report.md`` puts end reasons
and abort messages in Markdown tables, where raw HTML renders in many previewers and a ``|``
would forge cells.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from agentgym.policies.base import Generation, Policy
from agentgym.rollout.evaluate import EvalConfig, run_eval

PAYLOAD = ('<script>document.title="pwned"</script><img src=x onerror="alert(1)">'
           '<a href="javascript:alert(2)">x</a>')


class HostilePolicy(Policy):
    """Answers with markup in its text and in a tool call's arguments."""

    name = "hostile"

    async def agenerate(self, messages, **kwargs):
        return Generation(text=f'{PAYLOAD}\nlookup({PAYLOAD})')


class FailingPolicy(Policy):
    """Fails every turn with markup and a table separator in its message."""

    name = "failing"

    async def agenerate(self, messages, **kwargs):
        raise RuntimeError(f"| forged | 999 |\n{PAYLOAD}")


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed"):
            self.bad.append(tag)
        for name, value in attrs:
            if name.startswith("on") or (value or "").strip().lower().startswith("javascript:"):
                self.bad.append(f"{tag} {name}={value}")


def _viewer_pages(out: Path) -> list[Path]:
    pages = sorted((out / "viewer").glob("*.html"))
    assert len(pages) >= 2, pages  # the index and at least one episode
    return pages


def test_model_markup_is_text_in_the_viewer(tmp_path):
    out = tmp_path / "ev"
    run_eval(EvalConfig("shop", n=2, max_turns=2, out=str(out)), policy=HostilePolicy())
    shown = False
    for page in _viewer_pages(out):
        text = page.read_text()
        parser = Tags()
        parser.feed(text)
        assert not parser.bad, (page.name, parser.bad)
        shown |= "&lt;script&gt;" in text
    assert shown  # the model's text was rendered, as text


def test_failure_messages_cannot_forge_report_rows_or_markup(tmp_path):
    out = tmp_path / "ev"
    results = run_eval(EvalConfig("shop", n=2, max_turns=2, out=str(out)),
                       policy=FailingPolicy())
    assert results["metrics"]["aborted"] == 2
    report = (out / "report.md").read_text()
    assert "<script" not in report and "<img" not in report and "<a href" not in report
    assert "| forged | 999 |" not in report
    rows = [line for line in report.splitlines() if line.startswith("| aborted: ")]
    assert rows and all(line.count(" | ") == 1 for line in rows), rows  # two cells each
    for page in _viewer_pages(out):
        parser = Tags()
        parser.feed(page.read_text())
        assert not parser.bad, (page.name, parser.bad)
