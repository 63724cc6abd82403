"""The search family's env ids, registered through the same hook as every plugin."""

from __future__ import annotations

from typing import Any

ENTRY = "agentgym.envs.search.env:SearchEnv"
TASKS = "agentgym.envs.search.env:load_tasks"
LOOKUP_TEMPLATES: tuple[str, ...] = ("person/born", "work/year", "organisation/founded",
                                     "city/founded")
"""1-hop questions whose answer is a year stated in the top BM25 result (see docs/search.md)."""


def register_search(register: Any) -> None:
    """Register ``search/qa-v0`` and its protocol and learning variants."""
    register("search/qa-v0", ENTRY, family="search", aliases=("search", "search-qa"),
             max_turns=10, tasks=TASKS,
             description="Multi-hop QA over a generated 10k-passage encyclopedia with "
                         "search/open/answer tools; EM reward.")
    register("search/qa-r1-v0", ENTRY, kwargs={"protocol": "search-r1"}, family="search",
             aliases=("search-r1",), max_turns=5, tasks=TASKS,
             description="search/qa-v0 with Search-R1's <search>/<information>/<answer> tags.")
    register("search/memsearcher-v0", ENTRY, kwargs={"protocol": "memsearcher"},
             family="search", aliases=("memsearcher",), max_turns=8, tasks=TASKS,
             description="MemSearcher loop: each observation holds only the question, the "
                         "model's memory and the newest results.")
    register("search/lookup-v0", ENTRY,
             kwargs={"protocol": "direct", "hops": 1, "templates": LOOKUP_TEMPLATES,
                     "prefetch": 1, "lenient": True, "reward": "em"},
             family="search", max_turns=1, tasks=TASKS,
             description="One-hop questions with the top search result shown; one-turn answer "
                         "(the SmolLM2 learning subset).")


def register_services(register: Any) -> None:
    """Register ``retriever``: the Search-R1-compatible ``/retrieve`` service."""
    register("retriever", "agentgym.envs.search.service:serve_corpus",
             description="Search-R1-compatible POST /retrieve over a corpus "
                         "(agentgym serve-retriever).")
