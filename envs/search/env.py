"""``search/qa-v0`` and variants: answer a question by searching a bundled encyclopedia.

Each task is a question (1 to 3 hops) over the generated encyclopedia of :mod:`.corpus`, or
over a user's corpus and QA file. Three action protocols share one env:

- ``tools`` (default): ``search(query, k)``, ``open(doc_id)``, ``answer(text)`` as tool calls.
- ``search-r1``: Search-R1's tags. ``<search>q</search>`` returns
  ``<information>Doc 1(Title: ...) ...</information>``; ``<answer>a</answer>`` ends the episode.
- ``memsearcher``: MemSearcher's loop. The model writes ``<memory>...</memory>`` and a
  ``<tool_call>{"name": "search", "arguments": {"query", "top_n"}}</tool_call>`` or a final
  ``\\boxed{answer}``; every observation holds only the question, the model's newest memory and
  the newest results (``info["context"] == "replace"`` tells a runner it may drop the history).
- ``direct``: for small models: the first observation shows the top results for the question
  (``prefetch``) and the reply is the answer (tags and tool calls also work).

Reward: exact match (``reward="em"``) or word F1 (``"f1"``) after SQuAD normalisation against
the gold answer and its aliases, minus ``format_penalty`` when any turn broke the protocol.
``success`` is exact match. Retrieval is in-process (``retriever="bm25"|"dense"|"hybrid"``) or
a Search-R1-compatible service (``service_url`` or ``$AGENTGYM_SEARCH_URL``); a dead service
aborts the episode as an infrastructure failure.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

from agentgym import Observation, StepResult, Task, TaskSet, TaskToolEnv, ToolCall
from agentgym import parse_tool_calls as parse_calls
from agentgym.errors import ToolError

from .data import file_corpus, generated_data, shared_retriever
from .loaders import load_qa_jsonl
from .prompts import INSTRUCTIONS
from .questions import QAItem
from .retrievers.base import MAX_K, Hit, Retriever
from .retrievers.remote import RemoteRetriever
from .scoring import exact_match, score_answer

ENV_URL = "AGENTGYM_SEARCH_URL"
"""Environment variable read for the retrieval service URL when none is given."""
PROTOCOLS = ("tools", "search-r1", "memsearcher", "direct")
_TAG = re.compile(r"<(search|answer)>(.*?)</\1>", re.DOTALL | re.IGNORECASE)
_MEMORY = re.compile(r"<memory>(.*?)</memory>", re.DOTALL | re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")


def load_tasks(seed: int = 0) -> TaskSet:
    """The generated questions as tasks (split by entity cluster: ``train`` and ``test``)."""
    return tasks_from_items(generated_data(seed).questions, "search")


def tasks_from_items(items: Iterable[QAItem], name: str) -> TaskSet:
    """Tasks from :class:`~.questions.QAItem` objects."""
    return TaskSet((Task(q.qid, q.split, q.question, {
        "answers": q.answers, "hops": q.hops, "kind": q.kind, "supporting": q.supporting,
        "queries": q.queries, "template": q.template, "cluster": q.cluster,
    }) for q in items), name=name)


def render_results(hits: list[Hit], protocol: str, max_chars: int) -> str:
    """Search results as the model sees them (Search-R1's ``Doc i(Title: t) text`` or ids)."""
    if not hits:
        body = "No results."
    elif protocol in ("tools", "direct"):
        body = "\n".join(f"[{h.doc_id}] {h.passage.title}: {h.passage.text[:max_chars]}"
                         for h in hits)
    else:
        body = "\n".join(f"Doc {i}(Title: {h.passage.title}) {h.passage.text[:max_chars]}"
                         for i, h in enumerate(hits, 1))
    if protocol == "direct":
        return "\n".join(f"Passage: {h.passage.text[:max_chars]}" for h in hits) or body
    return body if protocol == "tools" else f"<information>{body}</information>"


class SearchEnv(TaskToolEnv):
    """Question answering by searching a corpus; scored by EM or F1 against gold answers."""

    fork_fields = ("memory", "format_errors", "_untagged")
    """Forked by copying its state: the task's fields, the memory and the format counters."""

    def __init__(
        self,
        split: str = "train",
        protocol: str = "tools",
        retriever: str = "bm25",
        service_url: str | None = None,
        reward: str = "em",
        format_penalty: float = 0.0,
        topk: int = 3,
        hops: int | None = None,
        templates: tuple[str, ...] | list[str] | None = None,
        prefetch: int = 0,
        lenient: bool = False,
        max_doc_chars: int = 600,
        corpus_path: str | None = None,
        qa_path: str | None = None,
        seed: int = 0,
    ) -> None:
        """Pick the split, protocol, retriever, reward and task filters.

        Args:
            split: ``train`` or ``test`` (disjoint entity clusters).
            protocol: ``tools``, ``search-r1``, ``memsearcher`` or ``direct``.
            retriever: ``bm25``, ``dense`` or ``hybrid`` (in-process; ignored with a service).
            service_url: a Search-R1-compatible ``/retrieve`` service; default
                ``$AGENTGYM_SEARCH_URL``, else in-process retrieval.
            reward: ``em`` or ``f1``.
            format_penalty: subtracted from the reward when any turn broke the protocol.
            topk: passages per search when the model gives no ``k``.
            hops: keep only questions of this many hops.
            templates: keep only questions whose template starts with one of these
                (``person/born``, ``compare/``, ...).
            prefetch: show the top ``prefetch`` results for the question in the first
                observation (a retrieval-augmented variant).
            lenient: a reply with no tool call or tag is taken as the answer (format error).
            max_doc_chars: characters of a passage shown in search results.
            corpus_path: a Search-R1 corpus JSONL to search instead of the bundled one.
            qa_path: NQ/HotpotQA-style QA JSONL to ask instead of the bundled questions.
            seed: seed of the generated encyclopedia.
        """
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
        if reward not in ("em", "f1"):
            raise ValueError(f"reward must be 'em' or 'f1', not {reward!r}")
        if not 1 <= topk <= MAX_K:
            raise ValueError(f"topk must be from 1 to {MAX_K}, not {topk}")
        self.protocol, self.reward_metric, self.format_penalty = protocol, reward, format_penalty
        self.topk, self.prefetch, self.lenient = topk, prefetch, lenient
        self.max_doc_chars = max_doc_chars
        self.instructions = INSTRUCTIONS[protocol]
        if corpus_path:
            if not qa_path:
                raise ValueError("corpus_path needs qa_path: the bundled questions are about "
                                 "the bundled corpus")
            corpus, folder = file_corpus(str(corpus_path))
            items = load_qa_jsonl(qa_path)
        else:
            data = generated_data(seed)
            corpus, folder = data.corpus, data.folder
            items = load_qa_jsonl(qa_path) if qa_path else data.questions
        url = service_url or os.environ.get(ENV_URL, "")
        self.retriever_kind = "remote" if url else retriever
        self._corpus, self._folder, self._url = corpus, folder, url
        self._retriever: Retriever | None = None
        tasks = tasks_from_items(items, "search")
        kept = [t for t in tasks
                if (hops is None or t.data["hops"] == hops)
                and (not templates or str(t.data["template"]).startswith(tuple(templates)))]
        super().__init__(TaskSet(kept, name="search"), split)
        self.memory = ""
        self.format_errors = 0
        self._untagged = False

    # -- plumbing ----------------------------------------------------------------------------

    @property
    def retriever(self) -> Retriever:
        """The retriever, built (or its cached index loaded) on first use."""
        if self._retriever is None:
            if self._url:
                self._retriever = RemoteRetriever(self._url)
            else:
                self._retriever = shared_retriever(self.retriever_kind, self._corpus, self._folder)
        return self._retriever

    def make_tools(self) -> list[Any]:
        """search, open and answer."""
        return [self.search, self.open, self.answer]

    def start(self, task: Task) -> str:
        """Show the question (and, with ``prefetch``, the top results for it)."""
        self.memory, self.format_errors, self._untagged = "", 0, False
        text = f"Question: {task.prompt}"
        if self.prefetch:
            hits = self.retriever.search(task.prompt, self.prefetch)
            results = render_results(hits, self.protocol, self.max_doc_chars)
            if self.protocol == "direct":
                return f"{results}\nQuestion: {task.prompt}\nAnswer:"
            text += "\n" + results
        if self.protocol == "memsearcher":
            return self._mem_view(task.prompt, "")
        return text

    def _mem_view(self, question: str, results: str) -> str:
        view = f"<question>{question}</question>\n<memory>{self.memory}</memory>"
        return view + (f"\n{results}" if results else "")

    def no_call_message(self) -> str:
        """The protocol's own reminder when a turn holds no action."""
        if self.protocol == "search-r1":
            return ("Error: no action found. Write <search>query</search> to search or "
                    "<answer>answer</answer> to answer.")
        if self.protocol == "memsearcher":
            return ("Error: no action found. Write <memory>...</memory> and then a search "
                    "<tool_call> or the final answer as \\boxed{answer}.")
        return super().no_call_message()

    def parse_action(self, action: Any) -> list[ToolCall]:
        """Tool calls in any protocol, plus the protocol's own text forms."""
        text = action if isinstance(action, str) else ""
        if isinstance(action, dict):
            text = str(action.get("content") or "")
        if self.protocol == "memsearcher":
            found = _MEMORY.findall(text)
            if found:
                self.memory = found[-1].strip()[:4000]
        calls = parse_calls(action)
        if self.protocol == "memsearcher":
            calls = [ToolCall(c.name, _rename_top_n(c.arguments), c.id) for c in calls]
            if not calls and _BOXED.search(text):
                calls = [ToolCall("answer", {"text": _BOXED.findall(text)[-1]})]
        elif not calls and self.protocol in ("search-r1", "direct"):
            match = _TAG.search(text)
            if match:
                name = match.group(1).lower()
                args = {"query": match.group(2).strip()} if name == "search" else {
                    "text": match.group(2).strip()}
                calls = [ToolCall(name, args)]
        if not calls:
            self.format_errors += 1
            if self.lenient and text.strip():
                calls = [ToolCall("answer", {"text": text.strip()})]
                self._untagged = True
        return calls

    def _step(self, action: Any) -> StepResult:
        obs, reward, terminated, truncated, info = super()._step(action)
        if self.protocol == "memsearcher" and self.task is not None:
            obs = _replace_text(obs, self._mem_view(self.task.prompt, obs["text"]))
            info["context"] = "replace"
        return obs, reward, terminated, truncated, info

    # -- tools -------------------------------------------------------------------------------

    def search(self, query: str, k: int | None = None) -> str:
        """Search the encyclopedia; returns the top passages with their ids.

        Args:
            query: What to look for, e.g. a name or a few keywords.
            k: How many passages to return (1 to 10; default 3).
        """
        if not query.strip():
            raise ToolError("the search query is empty")
        k = self.topk if k is None else k
        if not 1 <= k <= 10:
            raise ToolError(f"k must be from 1 to 10, not {k}")
        hits = self.retriever.search(query[:1000], k)
        return render_results(hits, self.protocol, self.max_doc_chars)

    def open(self, doc_id: str) -> str:
        """Show the full passage with this id.

        Args:
            doc_id: A passage id from the search results (the number in brackets).
        """
        passage = self.retriever.get(str(doc_id).strip().strip("[]"))
        if passage is None:
            raise ToolError(f"no passage with id {doc_id!r}")
        return passage.contents

    def answer(self, text: str) -> str:
        """Give the final answer (a short phrase: a name, a year, a place); ends the episode.

        Args:
            text: The answer, as short as possible.
        """
        task = self.task
        if task is None:
            raise ToolError("no task: call reset() first")
        golds = task.data["answers"]
        score = score_answer(text, golds, self.reward_metric)
        penalty = self.format_penalty if self.format_errors else 0.0
        em = exact_match(text, golds)
        outcome: dict[str, Any] = {"em": em, "f1": score_answer(text, golds, "f1"),
                                   "format_errors": self.format_errors, "answer": text[:200]}
        if self._untagged:
            outcome["error"] = "format: no answer tag; the whole reply was taken as the answer"
        self.finish(score - penalty, success=bool(em), **outcome)
        return f"Answer recorded: {'correct' if em else 'incorrect'}."

    # -- expert ------------------------------------------------------------------------------

    def expert_actions(self, task: Task) -> list[Any]:
        """Reference play: search each hop's entity, open its supporting passage, answer."""
        from .expert import expert_actions

        return expert_actions(task, self.protocol)

    def close(self) -> None:
        """Close a remote retriever's connections (shared in-process indexes stay loaded)."""
        if isinstance(self._retriever, RemoteRetriever):
            self._retriever.close()
        super().close()


def _rename_top_n(arguments: dict[str, Any]) -> dict[str, Any]:
    """MemSearcher's ``top_n`` is this env's ``k``."""
    if isinstance(arguments, dict) and "top_n" in arguments:
        arguments = {("k" if key == "top_n" else key): v for key, v in arguments.items()}
    return arguments


def _replace_text(obs: Observation, text: str) -> Observation:
    return {**obs, "text": text}


__all__ = ["ENV_URL", "PROTOCOLS", "SearchEnv", "load_tasks", "render_results", "tasks_from_items"]
