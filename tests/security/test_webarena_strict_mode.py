"""WebArena strict mode (issue 35): a constant URL or a word list earns nothing in training.

Under the official semantics (kept as ``eval_mode="official"``) ``url_match`` is a substring
test on host and path, so one URL whose path lists the gold paths passes url-only tasks, and a
non-numeric ``must_include`` has no length limit, so a list of candidate words passes. The
default mode, ``strict``, refuses both, and the sweep over the task sets shows it: the constants
that pass there are the tasks whose true answer is a constant (``N/A``, ``0``, ``yes``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentgym.envs.webarena.base_rates import base_rate, constant_urls, task_sets
from agentgym.envs.webarena.evaluators import evaluate


class Page:
    """A final page at ``url`` that selects nothing."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def current_url(self) -> str:
        return self.url

    async def read(self, url: str, script: str, prep: list[str]) -> str | None:
        return None


def _score(config: dict[str, Any], answer: str, url: str = "", **kw: Any) -> float:
    return asyncio.run(evaluate(config, answer, Page(url), **kw)).score


def _url_task(ref: str) -> dict[str, Any]:
    return {"intent": "go there", "eval": {"eval_types": ["url_match"], "reference_url": ref,
                                           "reference_answers": None, "program_html": [],
                                           "url_note": "GOLD in PRED"}}


def _answer_task(*items: str) -> dict[str, Any]:
    return {"intent": "which one?", "eval": {"eval_types": ["string_match"],
                                             "reference_answers": {"must_include": list(items)},
                                             "reference_url": "", "program_html": []}}


GOLDS = ["http://shop.test/catalog/red-kettle", "http://shop.test/orders/7",
         "http://git.test/a11y/issues?state=open", "http://shop.test/customer/account"]
LISTING = "http://shop.test/" + "/".join(g.split("://", 1)[1] for g in GOLDS)


def test_a_url_listing_the_gold_paths_passes_officially_but_not_strictly() -> None:
    official = [_score(_url_task(g), "", LISTING, mode="official") for g in GOLDS[:2]]
    assert official == [1.0, 1.0]  # the attack, under WebArena's semantics
    assert [_score(_url_task(g), "", LISTING) for g in GOLDS] == [0.0] * 4


@pytest.mark.parametrize("gold,final", [
    ("http://shop.test/catalog/red-kettle", "HTTP://Shop.TEST:80/catalog//red%2Dkettle/"),
    ("http://git.test/a11y/issues?state=open", "http://git.test/a11y/issues?page=2&state=open"),
    ("http://shop.test/a |OR| http://shop.test/b", "http://shop.test/b#top"),
])
def test_the_right_url_still_passes_strictly(gold: str, final: str) -> None:
    assert _score(_url_task(gold), "", final) == 1.0


@pytest.mark.parametrize("gold,final", [
    ("http://shop.test/orders", "http://shop.test/orders/7"),          # a prefix is not it
    ("http://shop.test/orders/7", "http://shop.test/x/orders/7"),      # nor a suffix
    ("http://git.test/i?state=open", "http://git.test/i?state=open&state=closed"),
    ("http://git.test/i?state=open", "http://git.test/i"),
    ("http://shop.test/a", "https://shop.test/a"),
    ("http://shop.test/a", "not a url"),
])
def test_other_urls_fail_strictly(gold: str, final: str) -> None:
    assert _score(_url_task(gold), "", final) == 0.0


def test_a_word_list_passes_officially_but_not_strictly() -> None:
    words = ", ".join(["Impulse Duffle", "Overnight Duffle", "Hawkeye Yoga Short", "Emma Lopez",
                       "byteblaze", "Pittsburgh", "Carnegie Mellon University"])
    task = _answer_task("Emma Lopez")
    assert _score(task, words, mode="official") == 1.0
    assert _score(task, words) == 0.0
    assert _score(task, "Emma Lopez Pittsburgh byteblaze Impulse Duffle Overnight") == 0.0
    # a plain statement of the answer still passes
    assert _score(task, "The customer is Emma Lopez.") == 1.0
    assert _score(_answer_task("Impulse Duffle", "Overnight Duffle"),
                  "Impulse Duffle and Overnight Duffle") == 1.0
    # numbers are matched whole and a hedge of numbers is refused already: no length bound
    assert _score(_answer_task("0"), "Need advice about my castle: 0 comments") == 1.0


def test_a_reference_with_separators_bounds_parts_by_its_own_parts() -> None:
    """``byteblaze/docs-portal`` is two parts and an address with its town three: the answer
    that states them passes, one that lists more candidates than that does not; a task that
    checks a name and a fuzzy duration is bounded by both references together."""
    repo = _answer_task("byteblaze/docs-portal")
    assert _score(repo, "byteblaze/docs-portal") == 1.0
    assert _score(repo, "byteblaze/docs-portal, byteblaze/web-scraper, kilo-org/task-runner") == 0.0
    place = _answer_task("1000 Airport Boulevard, Pittsburgh, PA 15231")
    assert _score(place, "Pittsburgh International Airport, 1000 Airport Boulevard, "
                         "Pittsburgh, PA 15231") == 1.0
    assert _score(place, "1000 Airport Boulevard, Pittsburgh, PA 15231, 12 Allegheny County "
                         "Airport, West Mifflin, PA 15122") == 0.0


def test_an_unknown_eval_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="eval_mode"):
        _score(_answer_task("x"), "x", mode="lenient")


def test_the_gold_listing_url_of_the_official_sets_earns_nothing_strictly() -> None:
    """Evaluator level over every task set installed: the URL listing all gold URLs passes no
    url-only task strictly (officially it passes many), and strict never pays more than official
    for any constant."""
    sets = task_sets()
    if "webarena-lite" not in sets:
        pytest.skip("the [webarena] extra's task packages are not installed")
    records = [r for r in sets["webarena-lite"]
               if r["eval"].get("eval_types") == ["url_match"]]
    listing = constant_urls(records)[-1]
    official = sum(_score(_resolved(r), "", listing, mode="official") for r in records)
    strict = sum(_score(_resolved(r), "", listing) for r in records)
    assert official >= 5 and strict == 0, (official, strict)
    lite = sets["webarena-lite"]
    assert base_rate("lite", lite, "strict").any_constant < \
        base_rate("lite", lite, "official").any_constant


def _resolved(rec: dict[str, Any]) -> dict[str, Any]:
    from agentgym.envs.webarena.base_rates import resolve

    return resolve(rec)


def test_a_gold_path_locating_a_checked_page_may_be_a_segment_prefix() -> None:
    """"Post in forum books": gold ``/f/books``, the expert ends on ``/f/books/433``. With a
    ``program_html`` check the URL only locates the page that check reads, so a segment prefix
    passes the URL part; a url-only task still wants the very URL, and ``/f/booksy`` is
    another forum either way."""
    page = {"url": "last", "locator": "", "required_contents": {"must_include": ["x"]}}
    task = _url_task("http://forum.test/f/books")
    task["eval"]["eval_types"] = ["url_match", "program_html"]
    task["eval"]["program_html"] = [page]

    def url_part(final: str, config: dict[str, Any]) -> float:
        result = asyncio.run(evaluate(config, "", Page(final)))
        return result.parts.get("url_match", -1.0)

    assert url_part("http://forum.test/f/books/433?msg=posted", task) == 1.0
    assert url_part("http://forum.test/f/booksy/433", task) == 0.0
    assert url_part("http://forum.test/x/f/books/433", task) == 0.0
    assert _score(_url_task("http://forum.test/f/books"), "", "http://forum.test/f/books/433") \
        == 0.0
