"""WebArena-Lite evaluators on hand-written cases (no browser: a fake page probe)."""

from __future__ import annotations

import asyncio
from typing import Any

from agentgym.envs.webarena.evaluators import (
    clean_answer,
    contents_score,
    evaluate,
    exact_match,
    must_include,
    numbers_in,
    url_score,
)
from agentgym.envs.webarena.judges import NormalizedJudge, PolicyJudge, normalize
from agentgym.policies.base import Generation


class FakeProbe:
    """Pages as a dict: url -> {script: text}; the final URL is fixed."""

    def __init__(self, url: str, pages: dict[str, dict[str, str]]) -> None:
        self.url, self.pages, self.reads = url, pages, []

    async def current_url(self) -> str:
        return self.url

    async def read(self, url: str, script: str, prep: list[str]) -> str | None:
        self.reads.append((url, script))
        target = self.url if url == "last" else url
        if target not in self.pages:
            raise RuntimeError(f"404 {target}")
        return self.pages[target].get(script)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def config(eval_types: list[str], **block: Any) -> dict[str, Any]:
    return {"intent": "q", "eval": {"eval_types": eval_types, "reference_answers": None,
                                    "reference_url": "", "program_html": [], **block}}


def test_clean_answer_strips_quotes_and_case() -> None:
    assert clean_answer('  "Hello World" ') == "hello world"
    assert clean_answer("'x'") == "x"
    assert clean_answer("it's") == "it's"


def test_exact_match() -> None:
    assert exact_match("SKU-00012", " sku-00012 ") == 1.0
    assert exact_match("SKU-00012", "SKU-00012.") == 0.0


def test_must_include_with_or_alternatives() -> None:
    assert must_include("12.50", "The price is $12.50") == 1.0
    assert must_include("red |OR| crimson", "a CRIMSON shirt") == 1.0
    assert must_include("red |OR| crimson", "a blue shirt") == 0.0


def test_must_include_numbers_are_whole_numbers() -> None:
    assert numbers_in("about 1,234.50 units, #000180 and 2.0") == {"1234.5", "000180", "2"}
    assert must_include("3", "There are 3 open issues") == 1.0
    assert must_include("3", "There are 30 open issues") == 0.0
    assert must_include("$12.99", "it cost 12.99 dollars") == 1.0
    assert must_include("a", "a b", tokenize=True) == 1.0
    assert must_include("a", "cat", tokenize=True) == 0.0
    assert must_include("at", "cat") == 1.0  # longer references are substrings, as in WebArena


def test_normalized_judge() -> None:
    judge = NormalizedJudge()
    assert normalize("It takes 1 h 5 min!") == "it takes 1 h 5 min"
    assert run(judge.fuzzy("q", ["23 min"], "About 23 min by car.")) == 1.0
    assert run(judge.fuzzy("q", ["123,456"], "123456 people")) == 1.0
    assert run(judge.fuzzy("q", ["3 min"], "23 min")) == 0.0
    assert run(judge.fuzzy("q", ["Paris"], "Paris " + "or maybe somewhere else " * 5)) == 0.0
    assert run(judge.fuzzy("q", ["a b c d e f", "g h i j k l"], "a b c d e f and g h i j k l"))
    assert run(judge.fuzzy("q", [], "anything")) == 0.0
    assert run(judge.unachievable("q", "no such product", "This product does not exist.")) == 0
    assert run(judge.page("q", ["refund", "12.99"], "I want a refund of $12.99")) == 1.0
    assert run(judge.page("q", ["refund", "12.99"], "I want a refund")) == 0.0


def test_url_match_gold_in_pred_with_query_and_or() -> None:
    ref = "http://h:1/category/beauty?sort=price_desc"
    assert url_score(ref, "http://h:1/category/beauty?sort=price_desc&page=2") == 1.0
    assert url_score(ref, "http://h:1/category/beauty?sort=price_asc") == 0.0
    assert url_score(ref, "http://h:1/category/beauty") == 0.0
    assert url_score("http://h:1/a |OR| http://h:1/b", "http://h:1/b/") == 1.0
    assert url_score("http://h:1/search?q=green tea", "http://h:1/search?q=green+tea") == 1.0


def test_url_gold_alternatives_share_their_query_values() -> None:
    """WebArena pools the gold alternatives' query values per key."""
    ref = "http://h/s?q=a |OR| http://h/s?q=b"
    assert url_score(ref, "http://h/s?q=b") == 1.0
    assert url_score(ref, "http://h/s?q=c") == 0.0


def test_contents_score_unescapes_html() -> None:
    judge = NormalizedJudge()
    assert run(contents_score({"must_include": ["Home & Kitchen"]}, "Home &amp; Kitchen", "q",
                              judge)) == 1.0
    assert run(contents_score({"exact_match": "Closed"}, "closed", "q", judge)) == 1.0
    assert run(contents_score({"exact_match": "Closed"}, "Open", "q", judge)) == 0.0


def test_string_eval_multiplies_items() -> None:
    cfg = config(["string_match"], reference_answers={"must_include": ["alex", "morgan"]})
    assert run(evaluate(cfg, "Alex Morgan", FakeProbe("", {}))).score == 1.0
    assert run(evaluate(cfg, "Alex Smith", FakeProbe("", {}))).score == 0.0
    assert run(evaluate(cfg, None, FakeProbe("", {}))).score == 0.0


def test_fuzzy_na_tries_exact_then_judge() -> None:
    cfg = config(["string_match"], reference_answers={"fuzzy_match": "N/A"},
                 string_note="no such product")
    assert run(evaluate(cfg, "N/A", FakeProbe("", {}))).score == 1.0
    assert run(evaluate(cfg, "I cannot find it", FakeProbe("", {}))).score == 0.0
    policy = _Reply("same")
    judged = run(evaluate(cfg, "I cannot find it", FakeProbe("", {}), PolicyJudge(policy)))
    assert judged.score == 1.0 and "no such product" in policy.prompts[0]
    assert run(evaluate(cfg, "42", FakeProbe("", {}))).score == 0.0


def test_program_html_and_url_combined() -> None:
    url = "http://h/orders/3"
    cfg = config(["url_match", "program_html"], reference_url="http://h/orders/",
                 program_html=[{"url": "last", "locator": "document.L",
                                "required_contents": {"exact_match": "Pending"}},
                               {"url": "http://h/cart", "locator": "",
                                "required_contents": {"must_include": ["Kettle"]}}])
    good = FakeProbe(url, {url: {"() => document.L": "Pending"},
                           "http://h/cart": {"": "<td>Kettle</td>"}})
    result = run(evaluate(cfg, "", good, mode="official"))
    assert result.score == 1.0 and result.parts == {"url_match": 1.0, "program_html": 1.0}
    strict = run(evaluate(cfg, "", good))  # with a page check a segment prefix passes strictly
    assert strict.score == 1.0 and strict.parts == {"url_match": 1.0, "program_html": 1.0}
    url_only = config(["url_match"], reference_url="http://h/orders/")
    assert run(evaluate(url_only, "", good)).score == 0.0  # alone, strict wants that very URL
    assert run(evaluate(url_only, "", good, mode="official")).score == 1.0
    wrong_page = FakeProbe("http://h/cart", good.pages)
    assert run(evaluate(cfg, "", wrong_page)).score == 0.0
    missing = FakeProbe(url, {url: {"() => document.L": "Pending"}})
    res = run(evaluate(cfg, "", missing))
    assert res.score == 0.0 and "404" in res.notes[-1]


def test_unknown_eval_type_is_refused() -> None:
    result = run(evaluate(config(["magic"]), "", FakeProbe("", {})))
    assert result.score == 0.0 and "magic" in (result.error or "")


class _Reply:
    """A policy that answers every prompt with one fixed text."""

    def __init__(self, text: str) -> None:
        self.text, self.prompts = text, []

    async def agenerate(self, messages: list[dict[str, Any]], **_: Any) -> Generation:
        self.prompts.append(messages[-1]["content"])
        return Generation(text=self.text)


def test_policy_judge_grades_like_webarena_lite() -> None:
    each = _Reply("The answer is correct.")
    assert run(PolicyJudge(each).fuzzy("q", ["a", "b"], "a b")) == 1.0
    assert len(each.prompts) == 2  # one question per reference, as WebArena asks
    assert run(PolicyJudge(_Reply("partially correct")).fuzzy("q", ["a"], "a")) == 0.0
    assert run(PolicyJudge(_Reply("incorrect")).fuzzy("q", ["a"], "b")) == 0.0
    policy = _Reply("same")
    assert run(PolicyJudge(policy).unachievable("task", "closed", "cannot do it")) == 1.0
    assert "cannot do it" in policy.prompts[0] and "closed" in policy.prompts[0]
    page = _Reply("correct")
    assert run(PolicyJudge(page).page("q", ["refund", "148"], "text")) == 1.0
    assert "reference answer: refund, 148" in page.prompts[0]
